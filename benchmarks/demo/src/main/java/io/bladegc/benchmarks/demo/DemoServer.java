package io.bladegc.benchmarks.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import io.bladegc.commandline.UsageProblems;
import io.bladegc.servlet.BladeFilter;
import io.bladegc.servlet.BladeMeters;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The demo service: an embedded Jetty 12 (ee10) with a configurable live set and allocation rate, optionally behind
 * Blade's servlet filter.
 *
 * <pre>
 * java -cp benchmarks/demo/target/classes:$(cat benchmarks/demo/target/classpath.txt) io.bladegc.benchmarks.demo.DemoServer \
 *     --port 0 --live-mb 200 --garbage-kb 32 --churn-kb 4 --blade on --threads 32
 * </pre>
 * Defaults: {@code --port 8080 --live-mb 64 --garbage-kb 32 --churn-kb 4 --object-bytes 8192 --blade off
 * --threads 32 --gc-overlap off}.
 *
 * {@code --object-bytes} (default 8192: each 8 KiB chunk of the live set is one array) splits the live set into
 * smaller arrays, which is what makes marking and copying it cost what it does in a real service.
 *
 * <p>Prints exactly one line {@code LISTENING <port>} on stdout once the server accepts requests. Endpoints:
 * {@code /work} (one request's work; the body is a checksum), {@code /sleep?ms=N} (a request that stays in flight
 * for N ms, at most 60,000: what a slow request looks like to Blade's drain), {@code POST /gc} ({@code System.gc()}:
 * tests empty several nodes' heaps at one moment, so that they reach their next collection together),
 * {@code GET /stats} (JSON: every GC notification the demo saw, the Blade node's MBean attributes and, in coordinated
 * mode, the coordination counters ({@code coordination}: grants, overtaken, unscheduled, ...), and
 * {@code heapUsedBytes}: heap in use now, which right after a {@code POST /gc} on a compacting collector is the live
 * footprint), {@code POST /stats/reset} (forgets the GC notifications), {@code GET /metrics} (Prometheus text: the
 * meters of the Blade filter, {@code blade_gate_*} and {@code blade_request_gc_*}, and the node's ({@link BladeMeters}:
 * {@code blade_node_*}, and the agent's {@code blade_coordination_*}, {@code blade_explicit_gc_*}), registered when
 * {@code --blade on}).
 * {@code /metrics} is answered before the servlet context (see {@link MetricsHandler}), so it is not behind Blade's
 * gate and answers also while the node drains or collects; every other endpoint, and the filter's readiness endpoint
 * {@code /blade/ready}, is behind the filter when {@code --blade on}. {@code --gc-overlap on} turns on the filter's
 * per-request GC-overlap measurement (its init-param {@code gcOverlap}), which feeds
 * {@code blade_request_gc_overlap_seconds} and {@code blade_request_gc_share}; it is off by default (two clock reads
 * per request). Stops gracefully on SIGTERM.
 */
public final class DemoServer {
    /** Command-line settings. */
    record Options(int port, int liveMb, int garbageKb, int churnKb, int objectBytes, boolean blade, int threads,
                   boolean gcOverlap) {
        /** @throws UsageException naming every bad or unknown option */
        static Options parse(String... args) {
            return ToolCommandLine.options(new Flags(), args);
        }
    }

    /** The options as picocli reads them. */
    @Command(name = "DemoServer", description = "The demo service: Jetty 12 with a configurable live set and"
        + " allocation rate, optionally behind Blade's servlet filter. Prints 'LISTENING <port>' once it accepts"
        + " requests; stops on SIGTERM.")
    static final class Flags implements ToolCommand<Options> {
        private static final List<String> ON_OFF = List.of("on", "off");

        @Option(names = "--port", paramLabel = "N", defaultValue = "8080",
            description = "port to listen on, 0 for any (default ${DEFAULT-VALUE})")
        int port;

        @Option(names = "--live-mb", paramLabel = "M", defaultValue = "64",
            description = "the live set in MiB (default ${DEFAULT-VALUE})")
        int liveMb;

        @Option(names = "--garbage-kb", paramLabel = "K", defaultValue = "32",
            description = "short-lived garbage per request in KiB (default ${DEFAULT-VALUE})")
        int garbageKb;

        @Option(names = "--churn-kb", paramLabel = "C", defaultValue = "4",
            description = "live set replaced per request in KiB (default ${DEFAULT-VALUE})")
        int churnKb;

        @Option(names = "--object-bytes", paramLabel = "B", defaultValue = "" + Workload.CHUNK_BYTES,
            description = "the live set's arrays are this large, 16 to " + Workload.CHUNK_BYTES
                + " (default ${DEFAULT-VALUE})")
        int objectBytes;

        @Option(names = "--blade", paramLabel = "on|off", defaultValue = "off",
            description = "behind Blade's servlet filter (default ${DEFAULT-VALUE})")
        String blade;

        @Option(names = "--threads", paramLabel = "N", defaultValue = "32",
            description = "Jetty's threads, at least 8 (default ${DEFAULT-VALUE})")
        int threads;

        @Option(names = "--gc-overlap", paramLabel = "on|off", defaultValue = "off", description = "the filter's"
            + " per-request GC-overlap measurement; needs --blade on (default ${DEFAULT-VALUE})")
        String gcOverlap;

        @Override
        public Options options() {
            UsageProblems problems = new UsageProblems();
            problems.check(port >= 0, "--port", port, "a non-negative integer");
            problems.check(liveMb >= 0, "--live-mb", liveMb, "a non-negative integer");
            problems.check(garbageKb >= 0, "--garbage-kb", garbageKb, "a non-negative integer");
            problems.check(churnKb >= 0, "--churn-kb", churnKb, "a non-negative integer");
            problems.check(threads >= 8, "--threads", threads, "at least 8 (Jetty needs some for itself)");
            problems.check(objectBytes >= 16 && objectBytes <= Workload.CHUNK_BYTES, "--object-bytes", objectBytes,
                "16 to " + Workload.CHUNK_BYTES);
            problems.check(ON_OFF.contains(blade), "--blade", blade, "on or off");
            problems.check(ON_OFF.contains(gcOverlap), "--gc-overlap", gcOverlap, "on or off");
            if (gcOverlap.equals("on") && !blade.equals("on")) {
                problems.add("--gc-overlap on needs --blade on (the filter measures it)");
            }
            problems.throwIfAny();
            return new Options(port, liveMb, garbageKb, churnKb, objectBytes, blade.equals("on"), threads,
                gcOverlap.equals("on"));
        }
    }

    private final Options options;
    private final Workload workload;
    private final GcRecorder gcRecorder = new GcRecorder();
    private final ObjectMapper json = new ObjectMapper();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final BladeMeters nodeMeters = new BladeMeters();
    private final Server server;
    private final ServerConnector connector;
    /**
     * The connector's accept backlog: when a backend stalls, HAProxy opens a new connection to it per request it sends
     * meanwhile, and Java's default backlog of 50 overflowed (130,000 listen drops in a load sweep, 2026-11-29): each
     * dropped SYN came back as a request late by HAProxy's connect timeout, 1 or 2 s. Production servers raise it too.
     */
    static final int ACCEPT_QUEUE = 1_024;

    DemoServer(Options options) {
        this.options = options;
        this.workload = new Workload(options.liveMb(), options.garbageKb(), options.churnKb(), options.objectBytes());
        QueuedThreadPool pool = new QueuedThreadPool(options.threads(), Math.min(8, options.threads()));
        pool.setName("demo-http");
        server = new Server(pool);
        connector = new ServerConnector(server, 1, 1);
        connector.setPort(options.port());
        connector.setAcceptQueueSize(ACCEPT_QUEUE);
        server.addConnector(connector);

        ServletContextHandler context = new ServletContextHandler("/");
        context.addServlet(new ServletHolder("work", new WorkServlet(workload)), "/work");
        context.addServlet(new ServletHolder("sleep", new SleepServlet()), "/sleep");
        context.addServlet(new ServletHolder("gc", new GcServlet()), "/gc");
        context.addServlet(new ServletHolder("stats", new StatsServlet()), "/stats");
        context.addServlet(new ServletHolder("reset", new ResetServlet()), "/stats/reset");
        if (options.blade()) {
            FilterHolder blade = new FilterHolder(new BladeFilter(registry));
            blade.setName("blade");
            blade.setInitParameter(BladeFilter.GC_OVERLAP_PARAM, Boolean.toString(options.gcOverlap()));
            context.addFilter(blade, "/*", EnumSet.of(DispatcherType.REQUEST));
            nodeMeters.bindTo(registry);
        }
        server.setHandler(new MetricsHandler(registry, context));
        server.setStopAtShutdown(true); // SIGTERM: a shutdown hook stops Jetty
        server.setStopTimeout(5_000);
    }

    void start() throws Exception {
        server.start();
    }

    int port() {
        return connector.getLocalPort();
    }

    void stop() throws Exception {
        server.stop();
        gcRecorder.close();
        nodeMeters.close();
        registry.close();
    }

    /** @return the body of {@code GET /stats} */
    Map<String, Object> stats() {
        List<Map<String, Object>> pauses = new ArrayList<>();
        for (GcRecorder.GcEvent e : gcRecorder.events()) {
            pauses.add(e.toMap());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("gcPauses", pauses);
        out.put("gcEventsDropped", gcRecorder.dropped());
        out.put("node", NodeStats.read());
        out.put("coordination", NodeStats.read(NodeStats.COORDINATION_MBEAN));
        out.put("uptimeMs", ManagementFactory.getRuntimeMXBean().getUptime());
        out.put("requests", workload.requests());
        out.put("blade", options.blade());
        out.put("heapUsedBytes", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        return out;
    }

    public static void main(String[] args) throws Exception {
        BladeEventLines.enable();
        Options options = ToolCommandLine.parseOrExit(new Flags(), args);
        DemoServer demo = new DemoServer(options);
        demo.start();
        System.out.println("LISTENING " + demo.port());
        System.out.flush();
        System.err.printf("demo: live set %d MiB in objects of %d B, garbage %d KiB/request, churn %d KiB/request,"
                + " blade %s, %d threads, gc-overlap %s%n", options.liveMb(), options.objectBytes(),
            options.garbageKb(), options.churnKb(), options.blade() ? "on" : "off", options.threads(),
            options.gcOverlap() ? "on" : "off");
        demo.server.join();
    }

    /** {@code /work}: one request's work on the workload; also {@link TomcatDemoServer}'s (test sources). */
    static final class WorkServlet extends HttpServlet {
        private final Workload workload;

        WorkServlet(Workload workload) {
            this.workload = workload;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long checksum = workload.handle();
            resp.setContentType("text/plain");
            byte[] body = (Long.toString(checksum) + "\n").getBytes(StandardCharsets.US_ASCII);
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            doGet(req, resp);
        }
    }

    private static final class SleepServlet extends HttpServlet {
        private static final long MAX_MILLIS = 60_000;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long millis;
            try {
                millis = Long.parseLong(String.valueOf(req.getParameter("ms")));
            } catch (NumberFormatException e) {
                millis = -1;
            }
            if (millis < 0 || millis > MAX_MILLIS) {
                resp.sendError(HttpServletResponse.SC_BAD_REQUEST, "ms takes an integer from 0 to " + MAX_MILLIS);
                return;
            }
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            resp.setContentType("text/plain");
            resp.getOutputStream().write("slept\n".getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static final class GcServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) {
            System.gc();
            resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
        }
    }

    private final class StatsServlet extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            byte[] body = json.writeValueAsBytes(stats());
            resp.setContentType("application/json");
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }

    private final class ResetServlet extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) {
            gcRecorder.reset();
            resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
        }
    }
}
