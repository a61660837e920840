package io.bladegc.benchmarks.load;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * What one {@link OpenLoopLoad} run measured in its measured window (the warm-up excluded). Latencies are in
 * microseconds, from each request's intended send time to the end of its response.
 *
 * <p>Immutable (the histograms handed out are copies).
 */
public final class LoadResult {
    /** The percentiles reported, with their row labels. */
    private static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};
    private static final String[] PERCENTILE_LABELS = {"p50", "p90", "p99", "p99.9", "p99.99"};

    /** Counters of one run. Package-private and mutable while the run lasts; copied into the result. */
    static final class Counts {
        long sent;
        long warmupSent;
        long ok;
        long shed;
        long retryAfterMissing;
        long retryAfterInvalid;
        long otherStatus;
        final Map<Integer, Long> otherStatuses = new TreeMap<>();
        long ioErrors;
        long timeouts;
        long unfinished;
        long clamped;
        long maxSendLagMicros;
        long maxQueued;
        long[] timelineMaxMicros = new long[0];
        long[] timelineShed = new long[0];

        Counts copy() {
            Counts c = new Counts();
            c.sent = sent;
            c.warmupSent = warmupSent;
            c.ok = ok;
            c.shed = shed;
            c.retryAfterMissing = retryAfterMissing;
            c.retryAfterInvalid = retryAfterInvalid;
            c.otherStatus = otherStatus;
            c.otherStatuses.putAll(otherStatuses);
            c.ioErrors = ioErrors;
            c.timeouts = timeouts;
            c.unfinished = unfinished;
            c.clamped = clamped;
            c.maxSendLagMicros = maxSendLagMicros;
            c.maxQueued = maxQueued;
            c.timelineMaxMicros = timelineMaxMicros.clone();
            c.timelineShed = timelineShed.clone();
            return c;
        }
    }

    private final double targetRate;
    private final double achievedRate;
    private final double throughput;
    private final Counts counts;
    private final Histogram ok;
    private final Histogram all;

    LoadResult(double targetRate, double achievedRate, double throughput, Counts counts, Histogram ok,
               Histogram all) {
        this.targetRate = targetRate;
        this.achievedRate = achievedRate;
        this.throughput = throughput;
        this.counts = counts;
        this.ok = ok;
        this.all = all;
    }

    /** @return requests per second asked for */
    public double targetRate() {
        return targetRate;
    }

    /**
     * @return requests per second actually issued in the measured window (below the target only when the scheduling
     *     thread fell behind; a request waiting in the client-side queue counts as issued)
     */
    public double achievedRate() {
        return achievedRate;
    }

    /** @return answers (any outcome) per second, from the first measured send to the last measured answer */
    public double throughput() {
        return throughput;
    }

    /** @return requests sent in the measured window; the sum of all outcome counts */
    public long sent() {
        return counts.sent;
    }

    /** @return requests sent during the warm-up (not otherwise counted) */
    public long warmupSent() {
        return counts.warmupSent;
    }

    /** @return responses with a 2xx status */
    public long ok() {
        return counts.ok;
    }

    /** @return responses with status 503 (shed) */
    public long shed() {
        return counts.shed;
    }

    /** @return 503 responses without a {@code Retry-After} header */
    public long retryAfterMissing() {
        return counts.retryAfterMissing;
    }

    /** @return 503 responses whose {@code Retry-After} is not one non-negative integer (delay-seconds) */
    public long retryAfterInvalid() {
        return counts.retryAfterInvalid;
    }

    /** @return responses with any other status */
    public long otherStatus() {
        return counts.otherStatus;
    }

    /** @return the other statuses and how often each came */
    public Map<Integer, Long> otherStatuses() {
        return Map.copyOf(counts.otherStatuses);
    }

    /** @return requests that failed with an I/O error (refused, reset, ...) other than a timeout */
    public long ioErrors() {
        return counts.ioErrors;
    }

    /** @return requests that timed out */
    public long timeouts() {
        return counts.timeouts;
    }

    /** @return requests still outstanding when the run stopped waiting for them */
    public long unfinished() {
        return counts.unfinished;
    }

    /** @return latencies above {@link OpenLoopLoad#MAX_LATENCY_MICROS}, recorded as that maximum */
    public long clamped() {
        return counts.clamped;
    }

    /** @return the largest delay between a request's intended and actual send time (the client falling behind) */
    public long maxSendLagMicros() {
        return counts.maxSendLagMicros;
    }

    /**
     * @return the longest the client-side queue got (requests due while every connection was busy), seen when a
     *     measured request joined it
     */
    public long maxQueued() {
        return counts.maxQueued;
    }

    /**
     * @return for each second of the measured window (by intended send time), the largest 2xx latency, microseconds
     */
    public long[] timelineMaxMicros() {
        return counts.timelineMaxMicros.clone();
    }

    /** @return for each second of the measured window (by intended send time), the number of 503 responses */
    public long[] timelineShed() {
        return counts.timelineShed.clone();
    }

    /**
     * @return the measured window second by second: the largest 2xx latency and the 503s of requests due in that
     *     second, one line each, to see when a stall or shedding happened
     */
    public String timeline() {
        StringBuilder sb = new StringBuilder("second  max 2xx (ms)  503s\n");
        for (int i = 0; i < counts.timelineMaxMicros.length; i++) {
            sb.append(String.format(Locale.ROOT, "%6d  %12s  %4d%n", i, ms(counts.timelineMaxMicros[i]),
                counts.timelineShed[i]));
        }
        return sb.toString();
    }

    /** @return latencies of 2xx responses, microseconds (a copy) */
    public Histogram okLatency() {
        return ok.copy();
    }

    /** @return latencies of every answered or failed request, any status, microseconds (a copy) */
    public Histogram allLatency() {
        return all.copy();
    }

    /**
     * @param percentile e.g. 99.9
     * @return that percentile of the 2xx latencies, in microseconds (0 when there were none)
     */
    public long okPercentileMicros(double percentile) {
        return ok.getTotalCount() == 0 ? 0 : ok.getValueAtPercentile(percentile);
    }

    /** @return share of measured requests answered 503, in percent */
    public double shedPercent() {
        return counts.sent == 0 ? 0 : 100.0 * counts.shed / counts.sent;
    }

    /**
     * The result as labelled rows, for one column of a table: 2xx latency percentiles in ms, then shares and rates.
     *
     * @return label to formatted value, in display order
     */
    public Map<String, String> rows() {
        Map<String, String> rows = new LinkedHashMap<>();
        for (int i = 0; i < PERCENTILES.length; i++) {
            rows.put(PERCENTILE_LABELS[i] + " (ms)", ms(okPercentileMicros(PERCENTILES[i])));
        }
        rows.put("max (ms)", ms(ok.getTotalCount() == 0 ? 0 : ok.getMaxValue()));
        rows.put("max, any outcome (ms)", ms(all.getTotalCount() == 0 ? 0 : all.getMaxValue()));
        rows.put("2xx", Long.toString(counts.ok));
        rows.put("shed 503 (%)", String.format(Locale.ROOT, "%.2f", shedPercent()));
        rows.put("503 w/o valid Retry-After", Long.toString(counts.retryAfterMissing + counts.retryAfterInvalid));
        rows.put("other status", Long.toString(counts.otherStatus));
        rows.put("errors + timeouts", counts.ioErrors + " + " + counts.timeouts);
        rows.put("unfinished", Long.toString(counts.unfinished));
        rows.put("achieved rate (/s)", String.format(Locale.ROOT, "%.1f", achievedRate));
        rows.put("throughput (/s)", String.format(Locale.ROOT, "%.1f", throughput));
        rows.put("max send lag (ms)", ms(counts.maxSendLagMicros));
        rows.put("max client queue", Long.toString(counts.maxQueued));
        return rows;
    }

    @Override
    public String toString() {
        Map<String, Map<String, String>> column = new LinkedHashMap<>();
        column.put(String.format(Locale.ROOT, "%d requests at %.0f/s", counts.sent, targetRate), rows());
        StringBuilder sb = new StringBuilder(table(column));
        if (!counts.otherStatuses.isEmpty()) {
            sb.append("other statuses: ").append(counts.otherStatuses).append('\n');
        }
        if (counts.shed > 0) {
            sb.append(String.format(Locale.ROOT, "503s: %d, Retry-After missing %d, invalid %d%n", counts.shed,
                counts.retryAfterMissing, counts.retryAfterInvalid));
        }
        if (counts.clamped > 0) {
            sb.append("latencies above 60 s, recorded as 60 s: ").append(counts.clamped).append('\n');
        }
        return sb.toString();
    }

    /**
     * Formats columns side by side: the row labels on the left, one column per entry.
     *
     * @param columns column heading to rows (as from {@link #rows()}); rows missing in a column show as "-"
     * @return the table, lines ending in a newline
     */
    public static String table(Map<String, ? extends Map<String, String>> columns) {
        List<String> labels = new ArrayList<>();
        for (Map<String, String> c : columns.values()) {
            for (String label : c.keySet()) {
                if (!labels.contains(label)) {
                    labels.add(label);
                }
            }
        }
        int labelWidth = 0;
        for (String l : labels) {
            labelWidth = Math.max(labelWidth, l.length());
        }
        List<Integer> widths = new ArrayList<>();
        for (Map.Entry<String, ? extends Map<String, String>> c : columns.entrySet()) {
            int w = c.getKey().length();
            for (String v : c.getValue().values()) {
                w = Math.max(w, v.length());
            }
            widths.add(w);
        }
        StringBuilder sb = new StringBuilder();
        sb.append(pad("", labelWidth, false));
        int i = 0;
        for (String heading : columns.keySet()) {
            sb.append(" | ").append(pad(heading, widths.get(i++), true));
        }
        sb.append('\n').append("-".repeat(sb.length() - 1)).append('\n');
        for (String label : labels) {
            sb.append(pad(label, labelWidth, false));
            i = 0;
            for (Map<String, String> c : columns.values()) {
                sb.append(" | ").append(pad(c.getOrDefault(label, "-"), widths.get(i++), true));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** Writes the result (counts and both histograms, compressed) as a properties file; see {@link #load}. */
    public void save(Path file) throws IOException {
        Properties p = new Properties();
        p.setProperty("targetRate", Double.toString(targetRate));
        p.setProperty("achievedRate", Double.toString(achievedRate));
        p.setProperty("throughput", Double.toString(throughput));
        p.setProperty("sent", Long.toString(counts.sent));
        p.setProperty("warmupSent", Long.toString(counts.warmupSent));
        p.setProperty("ok", Long.toString(counts.ok));
        p.setProperty("shed", Long.toString(counts.shed));
        p.setProperty("retryAfterMissing", Long.toString(counts.retryAfterMissing));
        p.setProperty("retryAfterInvalid", Long.toString(counts.retryAfterInvalid));
        p.setProperty("otherStatus", Long.toString(counts.otherStatus));
        counts.otherStatuses.forEach((s, n) -> p.setProperty("status." + s, Long.toString(n)));
        p.setProperty("ioErrors", Long.toString(counts.ioErrors));
        p.setProperty("timeouts", Long.toString(counts.timeouts));
        p.setProperty("unfinished", Long.toString(counts.unfinished));
        p.setProperty("clamped", Long.toString(counts.clamped));
        p.setProperty("maxSendLagMicros", Long.toString(counts.maxSendLagMicros));
        p.setProperty("maxQueued", Long.toString(counts.maxQueued));
        p.setProperty("timelineMaxMicros", join(counts.timelineMaxMicros));
        p.setProperty("timelineShed", join(counts.timelineShed));
        p.setProperty("okHistogram", encode(ok));
        p.setProperty("allHistogram", encode(all));
        for (int i = 0; i < PERCENTILES.length; i++) {
            p.setProperty("ok." + PERCENTILE_LABELS[i] + ".micros", Long.toString(okPercentileMicros(PERCENTILES[i])));
        }
        p.setProperty("ok.max.micros", Long.toString(ok.getTotalCount() == 0 ? 0 : ok.getMaxValue()));
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "OpenLoopLoad result; latencies in microseconds from the intended send time");
        }
    }

    /** Reads a result written by {@link #save}. */
    public static LoadResult load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Counts c = new Counts();
        c.sent = num(p, "sent");
        c.warmupSent = num(p, "warmupSent");
        c.ok = num(p, "ok");
        c.shed = num(p, "shed");
        c.retryAfterMissing = num(p, "retryAfterMissing");
        c.retryAfterInvalid = num(p, "retryAfterInvalid");
        c.otherStatus = num(p, "otherStatus");
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith("status.")) {
                c.otherStatuses.put(Integer.valueOf(key.substring(7)), num(p, key));
            }
        }
        c.ioErrors = num(p, "ioErrors");
        c.timeouts = num(p, "timeouts");
        c.unfinished = num(p, "unfinished");
        c.clamped = num(p, "clamped");
        c.maxSendLagMicros = num(p, "maxSendLagMicros");
        c.maxQueued = num(p, "maxQueued");
        c.timelineMaxMicros = split(p.getProperty("timelineMaxMicros", ""));
        c.timelineShed = split(p.getProperty("timelineShed", ""));
        return new LoadResult(Double.parseDouble(p.getProperty("targetRate", "0")),
            Double.parseDouble(p.getProperty("achievedRate", "0")),
            Double.parseDouble(p.getProperty("throughput", "0")), c, decode(p.getProperty("okHistogram")),
            decode(p.getProperty("allHistogram")));
    }

    private static String join(long[] values) {
        StringBuilder sb = new StringBuilder();
        for (long v : values) {
            sb.append(sb.length() == 0 ? "" : ",").append(v);
        }
        return sb.toString();
    }

    private static long[] split(String s) {
        return s.isBlank() ? new long[0] : Arrays.stream(s.split(",")).mapToLong(Long::parseLong).toArray();
    }

    private static long num(Properties p, String key) {
        return Long.parseLong(p.getProperty(key, "0"));
    }

    private static String encode(Histogram h) {
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int n = h.encodeIntoCompressedByteBuffer(buf);
        byte[] bytes = new byte[n];
        buf.flip();
        buf.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }

    private static Histogram decode(String base64) {
        if (base64 == null) {
            return new Histogram(OpenLoopLoad.MAX_LATENCY_MICROS, 3);
        }
        try {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64)),
                OpenLoopLoad.MAX_LATENCY_MICROS);
        } catch (DataFormatException e) {
            throw new UncheckedIOException(new IOException("corrupt histogram", e));
        }
    }

    private static String ms(long micros) {
        return String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }

    private static String pad(String s, int width, boolean right) {
        if (s.length() >= width) {
            return s;
        }
        String fill = " ".repeat(width - s.length());
        return right ? fill + s : s + fill;
    }
}
