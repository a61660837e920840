package io.bladegc.coordinator;

import io.bladegc.api.slot.SlotPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;

/**
 * The command line and configuration file of {@code java -jar blade-coordinator.jar}. The file ({@code --config},
 * Java properties) takes the same keys as the flags, without the dashes. Precedence: flags, then the environment
 * ({@code BLADE_COORDINATOR_TOKEN} only, so the secret need not show in a process list), then the file, then the
 * defaults. Every bad key or value is one line that names it. Stateless, thread-safe.
 */
final class CoordinatorOptions {
    /** The environment variable that holds the token. */
    static final String TOKEN_ENV = "BLADE_COORDINATOR_TOKEN";

    /** A key: its name, its value's form, its default and what it does. */
    private record Key(String name, String form, String fallback, String help) {
    }

    // the load balancer's keys (haproxy, haproxy-servers, haproxy-drain) are read by CoordinatorMain.loadBalancer,
    // the replication keys (peers, id, raft-dir) by CoordinatorReplica.parse
    private static final List<Key> KEYS = List.of(
        new Key("bind", "<address>", CoordinatorConfig.DEFAULT_BIND,
            "address to listen on; a non-loopback address needs a token"),
        new Key("port", "<port>", Integer.toString(CoordinatorConfig.DEFAULT_PORT), "port to listen on (0: any)"),
        new Key("token", "<secret>", "none",
            "shared secret: node calls and /v1/cluster need 'Authorization: Bearer <secret>' (or env " + TOKEN_ENV
                + ")"),
        new Key("k", "<n>", "1", "at most this many nodes collecting at once"),
        new Key("k-fraction", "<0..1>", "0", "K as a share of live members (floor, at least 1); 0: use --k"),
        new Key("min-healthy", "<n>", "1", "never grant when fewer live members than this would be left serving"),
        new Key("k-due", "<n>", "0", "a node whose JVM will collect on its own within 150 ms (it would collect"
            + " in rotation) may be granted beyond K while fewer than this many collect, min-healthy still holding;"
            + " 0: never beyond K"),
        new Key("lease", "<duration>", "10s", "a grant's lifetime unless renewed"),
        new Key("member-timeout", "<duration>", "5s", "a member silent this long is dropped"),
        new Key("idle-timeout", "<duration>", "60s", "close connections idle this long"),
        new Key("request-timeout", "<duration>", "10s", "a request must arrive within this of its first byte"),
        new Key("max-wait", "<duration>", "60s", "the longest acquire long-poll (waitMillis) taken"),
        new Key("max-connections", "<n>", "10000", "connections beyond this are closed at once"),
        new Key("max-members", "<n>", "100000", "joins beyond this many members are refused (503)"),
        new Key("haproxy", "<endpoint>", "none",
            "HAProxy runtime API (stats socket at level admin): /path/admin.sock or host:port; none: generic mode"),
        new Key("haproxy-servers", "<node=backend/server,...>", "none",
            "which HAProxy server each node is, e.g. n1=app/s1,n2=app/s2"),
        new Key("haproxy-drain", "<drain|maint>", "drain",
            "state a collecting node's server is put in: drain finishes open connections, maint cuts them"),
        new Key("peers", "<id=host:port,...>", "none",
            "replicated mode: the coordinator replicas and their Raft ports; they share the ledger through Raft"),
        new Key("id", "<id>", "none", "replicated mode: this replica's id among --peers"),
        new Key("raft-dir", "<dir>", "blade-coordinator-raft", "replicated mode: where this replica keeps its Raft "
            + "log and snapshots (a directory per id below it)"),
        new Key("config", "<file>", "none", "a .properties file with the same keys (without the dashes)"));

    /**
     * The result of parsing.
     *
     * @param config the configuration, {@code null} when there are errors or help was asked for
     * @param values every key given, merged by precedence (for keys read elsewhere, e.g. the load balancer's)
     * @param help   whether {@code --help} was given
     * @param errors one line per problem
     */
    record Parsed(CoordinatorConfig config, Map<String, String> values, boolean help, List<String> errors) {
        Parsed {
            values = Map.copyOf(values);
            errors = List.copyOf(errors);
        }
    }

    private CoordinatorOptions() {
    }

    static Parsed parse(String[] args, Map<String, String> env) {
        List<String> errors = new ArrayList<>();
        Map<String, String> flags = new LinkedHashMap<>();
        boolean help = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            if (!arg.startsWith("--") || arg.length() == 2) {
                errors.add("unexpected argument '" + arg + "'; options look like --key value (see --help)");
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq >= 0 ? arg.substring(2, eq) : arg.substring(2);
            if (key(name) == null) {
                errors.add("unknown option '--" + name + "'; valid: " + validKeys());
                if (eq < 0 && i + 1 < args.length && !args[i + 1].startsWith("--")) {
                    i++; // its value
                }
                continue;
            }
            if (eq >= 0) {
                flags.put(name, arg.substring(eq + 1));
            } else if (i + 1 < args.length) {
                flags.put(name, args[++i]);
            } else {
                errors.add("option '--" + name + "' needs a value " + key(name).form());
            }
        }
        if (help) {
            return new Parsed(null, flags, true, List.of());
        }
        Map<String, String> values = new LinkedHashMap<>();
        String file = flags.get("config");
        if (file != null) {
            values.putAll(readFile(Path.of(file), errors));
        }
        String envToken = env.get(TOKEN_ENV);
        if (envToken != null && !envToken.isEmpty()) {
            values.put("token", envToken);
        }
        values.putAll(flags);
        CoordinatorConfig config = build(values, errors); // null when any error so far; still reports bad values
        if (config != null) {
            errors.addAll(config.problems());
        }
        return new Parsed(errors.isEmpty() ? config : null, values, false, errors);
    }

    static String usage() {
        StringBuilder b = new StringBuilder()
            .append("Usage: java -jar blade-coordinator.jar [options]\n\n")
            .append("The Blade coordinator: grants GC slots to the nodes of a cluster (at most K collecting at once)\n")
            .append("over HTTP/1.1 + JSON under /v1/ (see API.md), and takes each collecting node out of rotation.\n\n")
            .append("Options (durations: 500ms, 10s, 2m, or plain milliseconds):\n");
        for (Key k : KEYS) {
            String left = "  --" + k.name() + " " + k.form();
            b.append(String.format(Locale.ROOT, "%-32s %s (default %s)%n", left, k.help(), k.fallback()));
        }
        b.append(String.format(Locale.ROOT, "%-32s %s%n", "  --help", "this text"));
        b.append("\nThe file given with --config holds the same keys, e.g. 'k=2' or 'lease=15s'. Precedence: flags,\n")
            .append(TOKEN_ENV).append(", the file, the defaults. Stop with SIGTERM (or Ctrl-C): open long-polls are\n")
            .append("answered, then the coordinator exits.\n");
        return b.toString();
    }

    private static Map<String, String> readFile(Path file, List<String> errors) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            errors.add("cannot read --config " + file + ": " + e.getMessage());
            return Map.of();
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            if (key(name) == null || name.equals("config")) {
                errors.add("unknown key '" + name + "' in " + file + "; valid: " + validKeys());
            } else {
                values.put(name, p.getProperty(name).trim());
            }
        }
        return values;
    }

    private static CoordinatorConfig build(Map<String, String> v, List<String> errors) {
        CoordinatorConfig d = CoordinatorConfig.defaults();
        SlotPolicy p = d.policy();
        String bind = v.getOrDefault("bind", d.bind()).trim();
        int port = (int) number(v, "port", d.port(), 0, 65_535, errors);
        int k = (int) number(v, "k", p.maxCollecting(), 1, 1_000_000, errors);
        double fraction = fraction(v, "k-fraction", p.maxCollectingFraction(), errors);
        int minHealthy = (int) number(v, "min-healthy", p.minHealthy(), 0, 1_000_000, errors);
        int kDue = (int) number(v, "k-due", p.maxCollectingWhenDue(), 0, 1_000_000, errors);
        long lease = duration(v, "lease", p.leaseMillis(), errors);
        long memberTimeout = duration(v, "member-timeout", p.memberTimeoutMillis(), errors);
        long idle = duration(v, "idle-timeout", d.idleTimeoutMillis(), errors);
        long request = duration(v, "request-timeout", d.requestTimeoutMillis(), errors);
        long maxWait = duration(v, "max-wait", d.maxWaitMillis(), errors);
        int maxConnections = (int) number(v, "max-connections", d.maxConnections(), 1, 1_000_000, errors);
        int maxMembers = (int) number(v, "max-members", d.maxMembers(), 1, 10_000_000, errors);
        if (!errors.isEmpty()) {
            return null;
        }
        try {
            return new CoordinatorConfig(bind, port, v.get("token"),
                new SlotPolicy(k, fraction, minHealthy, lease, memberTimeout, kDue), idle, request, maxWait,
                maxConnections, maxMembers);
        } catch (IllegalArgumentException e) {
            errors.add("invalid configuration: " + e.getMessage());
            return null;
        }
    }

    private static long number(Map<String, String> v, String key, long fallback, long min, long max,
                               List<String> errors) {
        return parse(v, key, fallback, errors, "an integer in " + min + ".." + max, s -> {
            long n = Long.parseLong(s);
            return n >= min && n <= max ? n : null;
        });
    }

    private static double fraction(Map<String, String> v, String key, double fallback, List<String> errors) {
        String s = v.get(key);
        if (s == null) {
            return fallback;
        }
        try {
            double f = Double.parseDouble(s.trim());
            if (f >= 0 && f <= 1) {
                return f;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        errors.add("malformed value for '" + key + "': '" + s + "'; expected a number in 0..1");
        return fallback;
    }

    private static long duration(Map<String, String> v, String key, long fallback, List<String> errors) {
        return parse(v, key, fallback, errors, "a positive duration such as 500ms, 10s, 2m or 1500", s -> {
            String t = s.toLowerCase(Locale.ROOT);
            long unit = 1;
            if (t.endsWith("ms")) {
                t = t.substring(0, t.length() - 2);
            } else if (t.endsWith("s")) {
                t = t.substring(0, t.length() - 1);
                unit = 1_000;
            } else if (t.endsWith("m")) {
                t = t.substring(0, t.length() - 1);
                unit = 60_000;
            }
            long n = Long.parseLong(t.trim());
            return n >= 1 && n <= 86_400_000L / unit ? n * unit : null;
        });
    }

    private static long parse(Map<String, String> v, String key, long fallback, List<String> errors, String expected,
                              Function<String, Long> reader) {
        String s = v.get(key);
        if (s == null) {
            return fallback;
        }
        Long value = null;
        try {
            value = reader.apply(s.trim());
        } catch (NumberFormatException e) {
            // reported below
        }
        if (value == null) {
            errors.add("malformed value for '" + key + "': '" + s + "'; expected " + expected);
            return fallback;
        }
        return value;
    }

    private static Key key(String name) {
        for (Key k : KEYS) {
            if (k.name().equals(name)) {
                return k;
            }
        }
        return null;
    }

    private static String validKeys() {
        List<String> names = new ArrayList<>();
        KEYS.forEach(k -> names.add(k.name()));
        return String.join(", ", names);
    }
}
