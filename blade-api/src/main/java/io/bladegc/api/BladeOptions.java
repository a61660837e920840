package io.bladegc.api;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Blade's settings for one JVM. Immutable and thread-safe. Build with {@link #builder()}; read from agent arguments,
 * system properties and the environment with {@link BladeOptionsParser}.
 *
 * <p>{@link #toString()} never shows the {@link #token()}.
 *
 * @param enabled            whether Blade runs at all (default {@code true})
 * @param strict             whether a bad option stops the JVM instead of disabling Blade (default {@code false})
 * @param drainTimeout       the longest Blade waits for in-flight requests before collecting anyway (default 500 ms)
 * @param margin             extra lead time on top of the measured drain, wake-up and schedule times
 *                           (default 2 ms)
 * @param sampleInterval     how often the heap watcher reads the memory pools (default 5 ms)
 * @param coordinators       the base URLs of the coordinator's replicas ({@code http://} or {@code https://}, host,
 *                           optional port and path prefix; no user info, query or fragment; trailing slashes dropped;
 *                           no two alike), in the order the node tries them; one URL for a coordinator that is not
 *                           replicated; empty (or {@code null}, read as empty) for single-node mode (the default).
 *                           Immutable.
 * @param nodeId             this node's name at the coordinator, 1 to 64 characters from {@code A-Z a-z 0-9 . _ -}
 *                           (the coordinator's rule; not {@code .} or {@code ..}), or {@code null} for
 *                           {@link #defaultNodeId()}, the host name and the process id (worked out only when asked
 *                           for)
 * @param token              the shared secret sent as {@code Authorization: Bearer <token>} on every coordinator
 *                           call, or {@code null} for none (the default); 1 to 4096 visible ASCII characters
 * @param coordinatorTimeout how long the node waits for one coordinator replica's answer before it counts that
 *                           replica as down (default 1 s); with several replicas a call tries each at most once, so
 *                           it fails open after at most (number of replicas) times this, except the latency-critical
 *                           {@code acquire}, which fails open within this once, whatever the number of replicas
 * @param instrument         what the agent instruments: {@link Instrument#NONE} (the default: a servlet filter does
 *                           the gating) or {@link Instrument#SERVLET} (zero-code: every servlet container's entry
 *                           passes through the gate); {@code null} reads as the default. Agent only: a filter ignores
 *                           it
 * @param explicitGc         what becomes of {@code System.gc()} and {@code Runtime.gc()} called by application and
 *                           library code: {@link ExplicitGc#PASS} (the default: untouched), {@link ExplicitGc#COORDINATE}
 *                           or {@link ExplicitGc#IGNORE}; {@code null} reads as the default. Agent only: a filter
 *                           ignores it
 */
public record BladeOptions(boolean enabled, boolean strict, Duration drainTimeout, Duration margin,
                           Duration sampleInterval, List<URI> coordinators, String nodeId, String token,
                           Duration coordinatorTimeout, Instrument instrument, ExplicitGc explicitGc) {

    /** What the agent instruments, beside watching the heap. The option's values are the lower-case names. */
    public enum Instrument {
        /** Nothing: request-handling code passes through the gate by a Blade filter or by calling {@link Gate}. */
        NONE,
        /**
         * The outermost servlet entry of every Jakarta or javax servlet container (Tomcat, Jetty, Undertow), with no
         * filter in the application: the same accounting and 503 + {@code Retry-After} as the filter.
         */
        SERVLET
    }

    /**
     * What becomes of an explicit collection ({@code System.gc()}, {@code Runtime.gc()}) requested by application or
     * library code. Blade's own collections and the JDK's own calls are never touched.
     */
    public enum ExplicitGc {
        /** The call collects at once, as without Blade; the agent rewrites nothing. */
        PASS,
        /**
         * The call returns at once and the collection is planned like a predicted one: drained, and in a cluster
         * under a slot. Calls while one is planned join it. Where Blade cannot plan (no gate attached, no
         * coordinator) the call collects at once.
         */
        COORDINATE,
        /** The call does nothing, as with {@code -XX:+DisableExplicitGC}. */
        IGNORE
    }

    /** What a node id may look like: a path segment of the coordinator's URLs, as the coordinator accepts it. */
    public static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** What a token may look like: it goes into an HTTP header. */
    static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7e]{1,4096}");

    public BladeOptions {
        Objects.requireNonNull(drainTimeout, "drainTimeout");
        Objects.requireNonNull(margin, "margin");
        Objects.requireNonNull(sampleInterval, "sampleInterval");
        Objects.requireNonNull(coordinatorTimeout, "coordinatorTimeout");
        requirePositive("drainTimeout", drainTimeout);
        requirePositive("sampleInterval", sampleInterval);
        requirePositive("coordinatorTimeout", coordinatorTimeout);
        if (margin.isNegative()) {
            throw new IllegalArgumentException("margin must not be negative: " + margin);
        }
        coordinators = checkedCoordinators(coordinators);
        if (nodeId != null && !validNodeId(nodeId)) {
            throw new IllegalArgumentException("nodeId must be 1 to 64 characters from A-Z a-z 0-9 . _ - "
                + "(not . or ..): " + nodeId);
        }
        if (token != null && !TOKEN.matcher(token).matches()) {
            throw new IllegalArgumentException("token must be 1 to 4096 visible ASCII characters without spaces");
        }
        instrument = instrument == null ? Instrument.NONE : instrument;
        explicitGc = explicitGc == null ? ExplicitGc.PASS : explicitGc;
    }

    /** The options before the coordinator settings existed: single-node mode, default coordinator settings. */
    public BladeOptions(boolean enabled, boolean strict, Duration drainTimeout, Duration margin,
                        Duration sampleInterval) {
        this(enabled, strict, drainTimeout, margin, sampleInterval, List.of(), null, null,
            Builder.DEFAULT_COORDINATOR_TIMEOUT, Instrument.NONE, ExplicitGc.PASS);
    }

    /**
     * @return the coordinator replica the node tries first ({@code coordinators().get(0)}; with one URL, the
     *     coordinator), or {@code null} in single-node mode
     */
    public URI coordinator() {
        return coordinators.isEmpty() ? null : coordinators.get(0);
    }

    /** @return the {@link #coordinators()} as the {@code coordinator} option writes them: joined by {@code |} */
    public String coordinatorsText() {
        return coordinators.stream().map(URI::toString).collect(Collectors.joining("|"));
    }

    /** @return this node's name at the coordinator: as configured, else {@link #defaultNodeId()} */
    @Override
    public String nodeId() {
        return nodeId != null ? nodeId : defaultNodeId();
    }

    private static void requirePositive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
    }

    /** @return whether a coordinator is configured (cluster mode) */
    public boolean coordinated() {
        return !coordinators.isEmpty();
    }

    private static List<URI> checkedCoordinators(List<URI> uris) {
        if (uris == null) {
            return List.of();
        }
        List<URI> checked = new ArrayList<>(uris.size());
        Set<URI> seen = new HashSet<>();
        for (URI uri : uris) {
            Objects.requireNonNull(uri, "coordinators contains null");
            String problem = coordinatorProblem(uri);
            if (problem != null) {
                throw new IllegalArgumentException("coordinator " + problem + ": " + uri);
            }
            URI u = withoutTrailingSlash(uri);
            if (!seen.add(u)) {
                throw new IllegalArgumentException("coordinator listed twice: " + u);
            }
            checked.add(u);
        }
        return List.copyOf(checked);
    }

    /** @return whether {@code id} is a valid {@link #nodeId()} */
    public static boolean validNodeId(String id) {
        return id != null && NODE_ID.matcher(id).matches() && !id.equals(".") && !id.equals("..");
    }

    /**
     * @return {@code null} when {@code uri} is a usable coordinator base URL, else what is wrong with it (a phrase
     *     such as "must use http or https")
     */
    static String coordinatorProblem(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute() || uri.isOpaque() || !(scheme.equals("http") || scheme.equals("https"))) {
            return "must be an http:// or https:// URL";
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            return "must name a host";
        }
        if (uri.getRawUserInfo() != null) {
            return "must not carry user info (use the token option for the secret)";
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            return "must not have a query or fragment";
        }
        return null;
    }

    /** @return {@code uri} without trailing slashes: the form in which two coordinator URLs are compared */
    static URI withoutTrailingSlash(URI uri) {
        String s = uri.toString();
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == '/') {
            end--;
        }
        return end == s.length() ? uri : URI.create(s.substring(0, end));
    }

    /**
     * The default {@link #nodeId()}: {@code <host>-<pid>}, the host name as the operating system reports it, without
     * a DNS lookup ({@code /proc/sys/kernel/hostname}, else the {@code HOSTNAME} or {@code COMPUTERNAME} environment
     * variable, else {@code /etc/hostname}, else the JDK's local host name), with characters outside
     * {@code A-Z a-z 0-9 . _ -} replaced by {@code -} and shortened so the whole id fits 64 characters. It changes when
     * the JVM restarts; set {@code nodeId} explicitly when the coordinator maps nodes to load-balancer servers.
     *
     * @return the default node id, computed once per class loader
     */
    public static String defaultNodeId() {
        return DefaultNodeId.VALUE;
    }

    private static final class DefaultNodeId {
        static final String VALUE = compute();

        private static String compute() {
            String pid = Long.toString(ProcessHandle.current().pid());
            String host = hostName();
            host = host.replaceAll("[^A-Za-z0-9._-]", "-");
            int room = 64 - 1 - pid.length();
            if (host.length() > room) {
                host = host.substring(0, room);
            }
            if (host.isEmpty()) {
                host = "localhost";
            }
            return host + "-" + pid;
        }

        private static String hostName() {
            String h = firstLine(Path.of("/proc/sys/kernel/hostname"));
            if (h.isEmpty()) {
                h = env("HOSTNAME");
            }
            if (h.isEmpty()) {
                h = env("COMPUTERNAME");
            }
            if (h.isEmpty()) {
                h = firstLine(Path.of("/etc/hostname"));
            }
            if (h.isEmpty()) {
                try {
                    h = InetAddress.getLocalHost().getHostName(); // may ask DNS: the last resort only
                } catch (IOException | RuntimeException e) {
                    h = "";
                }
            }
            return h.trim();
        }

        private static String env(String name) {
            try {
                String v = System.getenv(name);
                return v == null ? "" : v.trim();
            } catch (SecurityException e) {
                return "";
            }
        }

        private static String firstLine(Path p) {
            try {
                if (!Files.isReadable(p)) {
                    return "";
                }
                return Files.readAllLines(p, StandardCharsets.UTF_8).stream().map(String::trim)
                    .filter(l -> !l.isEmpty()).findFirst().orElse("");
            } catch (IOException | RuntimeException e) {
                return "";
            }
        }
    }

    /** @return the options, with the token shown only as set or not */
    @Override
    public String toString() {
        return "BladeOptions[enabled=" + enabled + ", strict=" + strict + ", drainTimeout=" + drainTimeout
            + ", margin=" + margin + ", sampleInterval=" + sampleInterval + ", coordinator="
            + (coordinators.isEmpty() ? "null" : coordinatorsText())
            + ", nodeId=" + (nodeId != null ? nodeId : "(default)") + ", token=" + (token == null ? "none" : "(set)") + ", coordinatorTimeout="
            + coordinatorTimeout + ", instrument=" + instrument.name().toLowerCase(Locale.ROOT) + ", explicitGc="
            + explicitGc.name().toLowerCase(Locale.ROOT) + "]";
    }

    /** @return the defaults */
    public static BladeOptions defaults() {
        return builder().build();
    }

    /** @return a builder holding the defaults */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link BladeOptions}. Not thread-safe. */
    public static final class Builder {
        static final Duration DEFAULT_COORDINATOR_TIMEOUT = Duration.ofSeconds(1);

        private boolean enabled = true;
        private boolean strict = false;
        private Duration drainTimeout = Duration.ofMillis(500);
        private Duration margin = Duration.ofMillis(2);
        private Duration sampleInterval = Duration.ofMillis(5);
        private List<URI> coordinators = List.of();
        private String nodeId;
        private String token;
        private Duration coordinatorTimeout = DEFAULT_COORDINATOR_TIMEOUT;
        private Instrument instrument = Instrument.NONE;
        private ExplicitGc explicitGc = ExplicitGc.PASS;

        private Builder() {
        }

        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        public Builder strict(boolean strict) {
            this.strict = strict;
            return this;
        }

        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
            return this;
        }

        public Builder margin(Duration margin) {
            this.margin = margin;
            return this;
        }

        public Builder sampleInterval(Duration sampleInterval) {
            this.sampleInterval = sampleInterval;
            return this;
        }

        /** @param coordinator the coordinator's base URL (one replica), or {@code null} for single-node mode */
        public Builder coordinator(URI coordinator) {
            this.coordinators = coordinator == null ? List.of() : List.of(coordinator);
            return this;
        }

        /**
         * @param coordinators the base URLs of the coordinator's replicas, in the order the node tries them, no two
         *                     alike; empty or {@code null} for single-node mode
         */
        public Builder coordinators(List<URI> coordinators) {
            this.coordinators = coordinators;
            return this;
        }

        /** @param nodeId this node's name at the coordinator, or {@code null} for {@link #defaultNodeId()} */
        public Builder nodeId(String nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        /** @param token the shared secret for the coordinator, or {@code null} for none */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        public Builder coordinatorTimeout(Duration coordinatorTimeout) {
            this.coordinatorTimeout = coordinatorTimeout;
            return this;
        }

        public Builder instrument(Instrument instrument) {
            this.instrument = instrument;
            return this;
        }

        public Builder explicitGc(ExplicitGc explicitGc) {
            this.explicitGc = explicitGc;
            return this;
        }

        /** @throws IllegalArgumentException when a value is out of range */
        public BladeOptions build() {
            return new BladeOptions(enabled, strict, drainTimeout, margin, sampleInterval, coordinators, nodeId, token,
                coordinatorTimeout, instrument, explicitGc);
        }
    }
}
