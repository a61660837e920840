package io.bladegc.benchmarks.load;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Closed-loop load with wrk (Debian's {@code wrk} 4.x): each of its connections sends the next request as soon as
 * the previous one is answered, so the service runs as fast as it can and the latencies are what a saturated service
 * gives a fixed set of callers (closed loop: a stall slows the sending too, unlike {@link OpenLoopLoad}). Stateless.
 */
public final class Wrk {
    /** What a wrk run reported; latencies in milliseconds. */
    public record Result(double requestsPerSecond, long requests, Map<Integer, Double> percentileMillis,
                         double maxMillis, long non2xx, long socketErrors) {
        public Result {
            percentileMillis = Map.copyOf(percentileMillis);
        }

        /** @return the latency at {@code percentile} (50, 75, 90 or 99: what wrk prints), milliseconds */
        public double percentile(int percentile) {
            Double v = percentileMillis.get(percentile);
            if (v == null) {
                throw new IllegalArgumentException("wrk prints no p" + percentile + "; it prints "
                    + percentileMillis.keySet());
            }
            return v;
        }
    }

    private static final Pattern PERCENTILE = Pattern.compile("^\\s*(50|75|90|99)%\\s+([0-9.]+)(us|ms|s|m)\\s*$",
        Pattern.MULTILINE);
    private static final Pattern LATENCY_LINE = Pattern.compile(
        "^\\s*Latency\\s+[0-9.]+(?:us|ms|s|m)\\s+[0-9.]+(?:us|ms|s|m|%)\\s+([0-9.]+)(us|ms|s|m)", Pattern.MULTILINE);
    private static final Pattern REQUESTS = Pattern.compile("^\\s*([0-9]+) requests in ", Pattern.MULTILINE);
    private static final Pattern RATE = Pattern.compile("^Requests/sec:\\s+([0-9.]+)", Pattern.MULTILINE);
    private static final Pattern NON_2XX = Pattern.compile("^\\s*Non-2xx or 3xx responses:\\s+([0-9]+)",
        Pattern.MULTILINE);
    private static final Pattern SOCKET_ERRORS = Pattern.compile(
        "^\\s*Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+), timeout ([0-9]+)", Pattern.MULTILINE);

    private Wrk() {
    }

    /**
     * Runs wrk and waits for it (at most the duration plus 30 s; then it is killed).
     *
     * @param wrk         the {@code wrk} executable
     * @param url         what every request gets
     * @param connections connections, hence requests in flight, at once
     * @param duration    how long it sends
     * @param output      where wrk's output is kept
     * @return what it reported
     * @throws IOException when wrk cannot run, fails, or prints nothing this parser understands
     */
    public static Result run(Path wrk, URI url, int connections, Duration duration, Path output)
            throws IOException, InterruptedException {
        List<String> command = List.of(wrk.toString(), "-t2", "-c" + connections, "-d" + duration.toSeconds() + "s",
            "--timeout", "10s", "--latency", url.toString());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            if (!p.waitFor(duration.toSeconds() + 30, TimeUnit.SECONDS)) {
                throw new IOException("wrk did not end within " + (duration.toSeconds() + 30) + " s: " + command);
            }
        } finally {
            p.destroyForcibly();
        }
        String text = Files.readString(output, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException("wrk exited with " + p.exitValue() + ": " + text.strip());
        }
        return parse(text).orElseThrow(() -> new IOException("wrk's output not understood (" + output + "): "
            + text.strip()));
    }

    /** @return what wrk's {@code --latency} output says, or empty when a part is missing */
    static Optional<Result> parse(String text) {
        Map<Integer, Double> percentiles = new LinkedHashMap<>();
        Matcher m = PERCENTILE.matcher(text);
        while (m.find()) {
            percentiles.put(Integer.parseInt(m.group(1)), millis(m.group(2), m.group(3)));
        }
        Matcher latency = LATENCY_LINE.matcher(text);
        Matcher requests = REQUESTS.matcher(text);
        Matcher rate = RATE.matcher(text);
        if (percentiles.size() < 4 || !latency.find() || !requests.find() || !rate.find()) {
            return Optional.empty();
        }
        Matcher non2xx = NON_2XX.matcher(text);
        Matcher socket = SOCKET_ERRORS.matcher(text);
        long socketErrors = 0;
        if (socket.find()) {
            for (int g = 1; g <= 4; g++) {
                socketErrors += Long.parseLong(socket.group(g));
            }
        }
        long non2xxCount = non2xx.find() ? Long.parseLong(non2xx.group(1)) : 0;
        return Optional.of(new Result(Double.parseDouble(rate.group(1)), Long.parseLong(requests.group(1)),
            percentiles, millis(latency.group(1), latency.group(2)), non2xxCount, socketErrors));
    }

    private static double millis(String value, String unit) {
        double v = Double.parseDouble(value);
        return switch (unit) {
            case "us" -> v / 1000;
            case "ms" -> v;
            case "s" -> v * 1000;
            case "m" -> v * 60_000;
            default -> throw new IllegalArgumentException("unit " + unit);
        };
    }
}
