package io.bladegc.benchmarks.load;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one {@link OpenLoopLoad} run measured in its measured window (the warm-up excluded). Latencies are in
 * microseconds, from each request's intended send time to the end of its response.
 *
 * <p>Immutable and thread-safe (the histograms and arrays handed out are copies). {@link #rows()} is the result as
 * one column of a {@link SideBySideTable}; {@link #save}/{@link #load} keep it in a file ({@link LoadResultFile}).
 */
public final class LoadResult {
    /** The percentiles reported, with their row labels. */
    static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};
    static final String[] PERCENTILE_LABELS = {"p50", "p90", "p99", "p99.9", "p99.99"};

    private final double targetRate;
    private final double achievedRate;
    private final double throughput;
    private final LoadCounts counts;
    private final Histogram ok;
    private final Histogram all;

    LoadResult(double targetRate, double achievedRate, double throughput, LoadCounts counts, Histogram ok,
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
        StringBuilder sb = new StringBuilder(SideBySideTable.format(column));
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
     * Formats columns side by side; the same as {@link SideBySideTable#format}.
     *
     * @param columns column heading to rows (as from {@link #rows()}); rows missing in a column show as "-"
     * @return the table, lines ending in a newline
     */
    public static String table(Map<String, ? extends Map<String, String>> columns) {
        return SideBySideTable.format(columns);
    }

    /**
     * Writes the result (counts and both histograms, compressed) as a properties file; see {@link #load} and
     * {@link LoadResultFile}.
     */
    public void save(Path file) throws IOException {
        LoadResultFile.save(this, file);
    }

    /** Reads a result written by {@link #save}. */
    public static LoadResult load(Path file) throws IOException {
        return LoadResultFile.load(file);
    }

    /** @return the counters themselves (not a copy), for {@link LoadResultFile}; never to be changed */
    LoadCounts counts() {
        return counts;
    }

    static String ms(long micros) {
        return String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }
}
