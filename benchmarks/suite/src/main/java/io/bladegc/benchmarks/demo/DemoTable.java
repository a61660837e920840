package io.bladegc.benchmarks.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bladegc.benchmarks.load.LoadResult;
import io.bladegc.benchmarks.load.SideBySideTable;
import io.bladegc.benchmarks.report.ArmComparison;
import io.bladegc.benchmarks.report.LatencyPlot;
import io.bladegc.commandline.ToolCommand;
import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Prints the demo's arms side by side: the open-loop latency of 2xx responses, shed share and achieved rate from
 * {@code <prefix>.load.properties}, and the GC pauses the server saw during the measured window from
 * {@code <prefix>.stats.json}, and Blade's own counters over that window where the node publishes them (all
 * written by {@link DemoArm}); then Blade's ratios to the other arms and one sentence ({@link ArmComparison}), and
 * the arms' latency percentiles as {@code latency.png} beside the first arm's files ({@link LatencyPlot}).
 *
 * <pre>
 * DemoTable "G1 alone" target/demo/g1 "Blade" target/demo/blade
 * </pre>
 */
public final class DemoTable {
    private DemoTable() {
    }

    /** The command line: arm names and their files, in pairs. */
    @Command(name = "DemoTable", customSynopsis = "DemoTable NAME PATH_PREFIX [NAME PATH_PREFIX ...]",
        description = "Prints the demo's arms side by side, from the files DemoArm wrote under each PATH_PREFIX, and"
            + " writes latency.png beside the first arm's files.")
    static final class Arms implements ToolCommand<String[]> {
        @Parameters(paramLabel = "NAME PATH_PREFIX", arity = "1..*", description = "an arm's name and its files")
        List<String> pairs;

        @Override
        public String[] options() {
            if (pairs.size() % 2 != 0) {
                throw new UsageException("the last NAME (" + pairs.get(pairs.size() - 1) + ") has no PATH_PREFIX");
            }
            return pairs.toArray(String[]::new);
        }
    }

    public static void main(String[] arguments) throws IOException {
        String[] args = ToolCommandLine.parseOrExit(new Arms(), arguments);
        ObjectMapper json = new ObjectMapper();
        Map<String, Map<String, String>> columns = new LinkedHashMap<>();
        Map<String, JsonNode> nodes = new LinkedHashMap<>();
        List<ArmComparison.Arm> figures = new ArrayList<>();
        Map<String, Histogram> histograms = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            LoadResult load = LoadResult.load(Path.of(args[i + 1] + ".load.properties"));
            histograms.put(args[i], load.okLatency());
            JsonNode stats = json.readTree(Files.readString(Path.of(args[i + 1] + ".stats.json")));
            Map<String, String> rows = new LinkedHashMap<>(load.rows());
            double windowSeconds = load.achievedRate() > 0 ? load.sent() / load.achievedRate() : 0;
            rows.putAll(gcRows(stats.path("gcPauses"), windowSeconds));
            Path start = Path.of(args[i + 1] + ".stats-start.json");
            long forced = 0;
            long escaped = 0;
            if (stats.path("node").size() > 0 && Files.exists(start)) {
                JsonNode begin = json.readTree(Files.readString(start)).path("node");
                rows.putAll(nodeRows(begin, stats.path("node")));
                forced = stats.path("node").path("Forced").asLong() - begin.path("Forced").asLong();
                escaped = stats.path("node").path("Escaped").asLong() - begin.path("Escaped").asLong();
            }
            figures.add(new ArmComparison.Arm(args[i], load.okPercentileMicros(99.9), load.okLatency().getMaxValue(),
                load.ioErrors() + load.timeouts() + load.otherStatus() + load.unfinished(), load.shed(),
                stats.path("node").size() > 0, forced, escaped));
            columns.put(args[i], rows);
            if (stats.path("node").size() > 0) {
                ObjectNode node = stats.path("node").deepCopy();
                node.remove("QuietWindows"); // two numbers per collection since start: in stats.json, not on screen
                nodes.put(args[i], node);
            }
        }
        System.out.print(SideBySideTable.format(columns));
        System.out.println("latency: open loop, from each request's intended send time; percentiles over 2xx"
            + " responses; GC rows from the server's own GC notifications during the measured window; Blade rows"
            + " from the node's counters over the same window");
        for (Map.Entry<String, JsonNode> n : nodes.entrySet()) {
            System.out.println("Blade node (" + n.getKey() + "): " + n.getValue());
        }
        ArmComparison comparison = ArmComparison.of(figures, "a drained window");
        Path png = Path.of(args[1]).toAbsolutePath().getParent().resolve("latency.png");
        LatencyPlot.write(png, "Single-node demo", histograms);
        System.out.println();
        System.out.print(comparison.ratios());
        System.out.println(comparison.sentence());
        System.out.println("Picture: " + png + " (latency percentiles)");
    }

    /** Blade's own counters, as far as the node publishes them, over the measured window (end minus start). */
    static Map<String, String> nodeRows(JsonNode start, JsonNode end) {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String name : new String[] {"Forced", "Escaped", "Refused", "DrainTimeouts"}) {
            if (end.path(name).isNumber()) {
                rows.put("Blade " + name, Long.toString(end.path(name).asLong() - start.path(name).asLong()));
            }
        }
        return rows;
    }

    /**
     * @param event one entry of {@code /stats}' {@code gcPauses}
     * @return whether it reports a pause: every notification but a concurrent cycle's (the {@code ... Cycles} beans
     *     of ZGC and Shenandoah); the G1, Parallel and Serial beans report pauses
     */
    public static boolean isPause(JsonNode event) {
        String gc = event.path("gc").asText();
        String action = event.path("action").asText().toLowerCase(Locale.ROOT);
        return !gc.endsWith("Cycles") && !action.contains("cycle");
    }

    /**
     * Summarises GC notifications. A notification is a pause unless it reports a concurrent cycle (the
     * {@code ... Cycles} beans of ZGC and Shenandoah); the G1, Parallel and Serial beans report pauses.
     */
    static Map<String, String> gcRows(JsonNode events, double windowSeconds) {
        long pauses = 0;
        long forced = 0;
        long maxMs = 0;
        long totalMs = 0;
        for (JsonNode e : events) {
            if (!isPause(e)) {
                continue;
            }
            pauses++;
            long d = e.path("durationMs").asLong();
            maxMs = Math.max(maxMs, d);
            totalMs += d;
            if ("System.gc()".equals(e.path("cause").asText())) {
                forced++;
            }
        }
        Map<String, String> rows = new LinkedHashMap<>();
        rows.put("GC pauses", Long.toString(pauses));
        rows.put("  cause System.gc()", Long.toString(forced));
        rows.put("GC pause max (ms)", Long.toString(maxMs));
        rows.put("GC pause total (ms)", Long.toString(totalMs));
        rows.put("time between GCs (s)", pauses == 0 ? "-" : String.format(Locale.ROOT, "%.1f",
            windowSeconds / pauses));
        return rows;
    }
}
