package io.bladegc.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.war.WorkServlet;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.testkit.ChildProcess;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 6's zero-code mode with real containers: a WAR with no Blade code in it ({@code com.example.war}: a servlet,
 * half its requests asynchronous, and a listener) served by Tomcat 10 or Jetty 12, or its {@code javax.servlet} twin
 * ({@code com.example.javaxwar}) by Tomcat 9, in a child JVM ({@link WarServer}) with the built agent jar and
 * {@code instrument=servlet}, nothing else.
 *
 * <p>Judged from outside Blade: each answer carries the collector counts at the request's entry and answer
 * ({@code X-Gc-Span}), so the test knows which collections happened while a request was in flight; the JVM's own GC
 * notifications and the node's quiet windows (the gate closed, nothing in flight) tell which collections Blade
 * planned. A planned collection with a request in flight is a miscount of the accounting.
 *
 * <p>The share of planned collections is judged after a warm-up ({@link #WARMUP}): the container's start and the
 * first seconds of load (class loading, the JIT, a metaspace threshold, the agent learning the allocation rate) run
 * dozens of young collections a second in this small young generation, a few of which escape, more or fewer with the
 * machine's load. Requests and collections of the warm-up still count for every other check.
 */
class ZeroCodeServletIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LISTENING = Pattern.compile("(?m)^LISTENING ([0-9]+) ([0-9]+)$");
    private static final Pattern SPAN = Pattern.compile("([^=;]+)=(\\d+)-(\\d+)");
    private static final Duration WARMUP = Duration.ofSeconds(3);
    private static final Duration LOAD = Duration.ofSeconds(10);
    private static final int CLIENTS = 8;

    @ParameterizedTest
    @ValueSource(strings = {"tomcat", "jetty", "tomcat9"})
    void collectionsLandWhileNothingIsInFlightInAWarWithNoBladeCode(String container) throws Exception {
        try (War war = War.start(container, "instrument=servlet", "-Xmn24m")) {
            Load load = war.load();
            JsonNode stats = war.stats();
            List<NodePauses.Pause> pauses = NodePauses.of(container, stats);
            List<NodePauses.Pause> judged = pauses.stream().filter(p -> p.wallStartMs() >= load.measuredFromMs)
                .toList();
            List<NodePauses.Pause> unplanned = judged.stream().filter(p -> !p.planned()).toList();
            System.out.printf("%s: %s; %d pauses, %d after the warm-up, %d of them unplanned: %s; overlapped: %s%n",
                container, load, pauses.size(), judged.size(), unplanned.size(), unplanned, load.overlapped);

            assertThat(judged.size()).as("the young generation is sized to collect several times a second")
                .isGreaterThanOrEqualTo(5);
            assertThat((long) judged.size() - unplanned.size()).as("collections after the warm-up inside a quiet window: %s",
                judged).isGreaterThanOrEqualTo(Math.round(judged.size() * 0.95));
            assertThat(overlappedPlanned(pauses, load)).as("planned collections with a request in flight").isEmpty();
            assertThat(load.async.get()).as("asynchronous requests answered").isPositive();
            assertThat(load.failures).as("answers other than 200 and a 503 with Retry-After").isEmpty();
            assertThat(stats.path("servletEntry").path("Shed").asLong()).as("503s counted by the agent")
                .isEqualTo(load.shed.get());
            assertThat(war.temporaryFiles("blade-bridges-")).as("the bridges' jar, once the bootstrap loader has"
                + " them (a JVM killed with SIGKILL would leave it behind)").isEmpty();
        }
    }

    @Test
    void aLibraryCallingSystemGcInALoopDoesNotPauseRequestsWhenCoordinated() throws Exception {
        List<String> flags = List.of("-Xmn256m", "-Dwar.janitor.ms=400");
        Load passed;
        JsonNode passedStats;
        try (War war = War.start("jetty", "instrument=servlet,explicitGc=pass", flags.toArray(String[]::new))) {
            passed = war.load();
            passedStats = war.stats();
        }
        Load coordinated;
        JsonNode coordinatedStats;
        try (War war = War.start("jetty", "instrument=servlet,explicitGc=coordinate",
            flags.toArray(String[]::new))) {
            coordinated = war.load();
            coordinatedStats = war.stats();
        }
        List<String> passedHits = explicitOverlapped(passedStats, passed);
        List<String> coordinatedHits = explicitOverlapped(coordinatedStats, coordinated);
        System.out.printf("explicitGc=pass: %s; System.gc() collections with requests in flight: %d%n", passed,
            passedHits.size());
        System.out.printf("explicitGc=coordinate: %s; %s; System.gc() collections with requests in flight: %s%n",
            coordinated, coordinatedStats.get("explicitGc"), coordinatedHits);

        assertThat(passedHits).as("without coordination the library's collections pause requests in flight")
            .isNotEmpty();
        assertThat(coordinatedStats.path("explicitGc").path("Coordinated").asLong())
            .as("calls the agent turned into planned collections").isPositive();
        assertThat(explicitCollections(coordinatedStats)).as("the library's calls still collect").isPositive();
        assertThat(coordinatedHits).as("coordinated: collections it caused with a request in flight").isEmpty();
        assertThat(coordinated.failures).as("answers other than 200 and a 503 with Retry-After").isEmpty();
    }

    /** @return planned pauses during which some request was in flight */
    private static List<String> overlappedPlanned(List<NodePauses.Pause> pauses, Load load) {
        return pauses.stream().filter(NodePauses.Pause::planned)
            .filter(p -> load.overlapped.contains(p.bean() + "#" + p.id())).map(Object::toString).toList();
    }

    /** @return the collections caused by {@code System.gc()} during which some request was in flight */
    private static List<String> explicitOverlapped(JsonNode stats, Load load) {
        List<String> out = new ArrayList<>();
        for (JsonNode gc : stats.get("gcPauses")) {
            String key = gc.get("gc").asText() + "#" + gc.get("id").asLong();
            if (gc.get("cause").asText().equals("System.gc()") && load.overlapped.contains(key)) {
                out.add(key);
            }
        }
        return out;
    }

    private static long explicitCollections(JsonNode stats) {
        long n = 0;
        for (JsonNode gc : stats.get("gcPauses")) {
            n += gc.get("cause").asText().equals("System.gc()") ? 1 : 0;
        }
        return n;
    }

    /** What the clients saw. Thread-safe. */
    private static final class Load {
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger async = new AtomicInteger();
        final AtomicInteger shed = new AtomicInteger();
        final List<String> failures = new ArrayList<>();
        /** {@code bean#id} of each collection that happened while some request was in flight */
        final Set<String> overlapped = new HashSet<>();
        /** wall-clock end of the warm-up: {@link System#currentTimeMillis()} */
        final long measuredFromMs = System.currentTimeMillis() + WARMUP.toMillis();

        synchronized void answered(String span) {
            Matcher m = SPAN.matcher(span);
            while (m.find()) {
                for (long id = Long.parseLong(m.group(2)) + 1; id <= Long.parseLong(m.group(3)); id++) {
                    overlapped.add(m.group(1) + "#" + id);
                }
            }
        }

        synchronized void failed(String what) {
            if (failures.size() < 20) {
                failures.add(what);
            }
        }

        @Override
        public synchronized String toString() {
            return ok + " answered (" + async + " asynchronous), " + shed + " shed, " + failures.size()
                + " failures";
        }
    }

    /** The WAR in a container in a child JVM with the agent; stopped by pid on close. */
    private static final class War implements AutoCloseable {
        private final ChildProcess process;
        private final Path tmp;
        private final URI app;
        private final URI stats;
        private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        private War(ChildProcess process, Path tmp, int port, int statsPort) {
            this.process = process;
            this.tmp = tmp;
            this.app = URI.create("http://127.0.0.1:" + port + "/app/work");
            this.stats = URI.create("http://127.0.0.1:" + statsPort + "/stats");
        }

        static War start(String container, String agentArgs, String... jvmFlags) throws Exception {
            Path dir = Files.createDirectories(Path.of("target", "zerocode"));
            boolean javax = container.equals("tomcat9");
            Path war = javax ? buildWar(dir.resolve("javax-app.war"), "com/example/javaxwar", "zerocode-javax-war")
                : buildWar(dir.resolve("app.war"), "com/example/war", "zerocode-war");
            String name = "zerocode-" + container + "-" + agentArgs.replaceAll("[^a-z]+", "-");
            Path tmp = Files.createDirectories(dir.resolve(name + "-tmp"));
            List<String> cmd = new ArrayList<>(List.of(ClusterSpec.currentJava().toString(),
                "-javaagent:" + DemoProcess.requiredProperty("bladegc.agent.jar") + "=" + agentArgs,
                "-Djava.io.tmpdir=" + tmp.toAbsolutePath(),
                "-XX:+UseParallelGC", "-XX:ParallelGCThreads=1", "-Xms400m", "-Xmx400m"));
            cmd.addAll(List.of(jvmFlags));
            cmd.addAll(List.of("-cp", classpath(container), WarServer.class.getName(), container, war.toString()));
            ChildProcess p = ChildProcess.start(name, cmd, dir.resolve(name + ".out"), dir.resolve(name + ".log"));
            try {
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (System.nanoTime() < deadline) {
                    Matcher m = LISTENING.matcher(Files.readString(dir.resolve(name + ".out")));
                    if (m.find()) {
                        return new War(p, tmp, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
                    }
                    if (!p.isAlive()) {
                        break;
                    }
                    Thread.sleep(100);
                }
                throw new IllegalStateException(container + " did not start; see " + dir.resolve(name + ".log"));
            } catch (Exception | Error e) {
                p.close();
                throw e;
            }
        }

        /**
         * {@value #CLIENTS} clients for {@link #WARMUP} and then {@link #LOAD}, every other request asynchronous; 503s
         * retried.
         */
        Load load() throws Exception {
            Load load = new Load();
            long end = System.nanoTime() + WARMUP.plus(LOAD).toNanos();
            ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    running.add(clients.submit(() -> {
                        for (int i = 0; System.nanoTime() < end; i++) {
                            boolean async = i % 2 == 1;
                            request(load, async);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) {
                    f.get();
                }
            } finally {
                clients.shutdownNow();
            }
            return load;
        }

        private void request(Load load, boolean async) throws InterruptedException {
            URI uri = async ? URI.create(app + "?asyncMs=20") : app;
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                    .build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    load.ok.incrementAndGet();
                    load.async.addAndGet(async ? 1 : 0);
                    load.answered(r.headers().firstValue("X-Gc-Span").orElse(""));
                } else if (r.statusCode() == 503 && r.headers().firstValue("Retry-After").isPresent()) {
                    load.shed.incrementAndGet();
                    Thread.sleep(Long.parseLong(r.headers().firstValue("Blade-Retry-After-Ms").orElse("10")));
                } else {
                    load.failed(r.statusCode() + " " + r.headers().map());
                }
            } catch (IOException e) {
                load.failed(e.toString());
            }
        }

        /** @return the files the JVM left in its temporary directory whose names start with {@code prefix} */
        List<String> temporaryFiles(String prefix) throws IOException {
            try (Stream<Path> files = Files.list(tmp)) {
                return files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith(prefix)).toList();
            }
        }

        JsonNode stats() throws Exception {
            return JSON.readTree(http.send(HttpRequest.newBuilder(stats).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        }

        @Override
        public void close() throws InterruptedException {
            process.close();
        }
    }

    /**
     * The test's class path with one servlet container and its API: Tomcat 10 bundles the Jakarta API, Jetty uses
     * the jakarta.servlet-api jar, and Tomcat 9 (javax) comes from {@code target/tomcat9} instead of both.
     */
    private static String classpath(String container) throws IOException {
        List<String> drop = switch (container) {
            case "tomcat" -> List.of("jakarta.servlet-api-");
            case "jetty" -> List.of("tomcat-");
            default -> List.of("tomcat-", "jakarta.servlet-api-", "jetty-");
        };
        String cp = DemoProcess.requiredProperty("bladegc.benchmarks.test.classpath");
        List<String> entries = new ArrayList<>(Arrays.stream(cp.split(File.pathSeparator))
            .filter(e -> drop.stream().noneMatch(Path.of(e).getFileName().toString()::startsWith)).toList());
        if (container.equals("tomcat9")) {
            try (Stream<Path> jars = Files.list(Path.of(DemoProcess.requiredProperty("bladegc.benchmarks.tomcat9")))) {
                jars.forEach(j -> entries.add(j.toString()));
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Packs the classes of one package and a {@code web.xml} into a WAR: nothing of Blade's is in it. */
    private static Path buildWar(Path war, String packageDir, String webXmlDir) throws Exception {
        Path classes = Path.of(WorkServlet.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (OutputStream out = Files.newOutputStream(war); ZipOutputStream zip = new ZipOutputStream(out);
             Stream<Path> files = Files.list(classes.resolve(packageDir))) {
            zip.putNextEntry(new ZipEntry("WEB-INF/web.xml"));
            Files.copy(classes.resolve(webXmlDir + "/WEB-INF/web.xml"), zip);
            for (Path c : files.toList()) {
                zip.putNextEntry(new ZipEntry("WEB-INF/classes/" + packageDir + "/" + c.getFileName()));
                Files.copy(c, zip);
            }
        }
        return war;
    }
}
