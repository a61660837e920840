package io.bladegc.benchmarks.load;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Properties;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * A {@link LoadResult} as a properties file: every count, the per-second timeline as comma-separated numbers, both
 * histograms compressed and Base64-encoded ({@code okHistogram}, {@code allHistogram}), and for reading by eye the
 * 2xx percentiles in microseconds ({@code ok.p99.9.micros}, ...). Missing keys read as 0 (or an empty histogram).
 * Stateless.
 */
final class LoadResultFile {
    private LoadResultFile() {
    }

    /** Writes {@code r} to {@code file}, replacing it. */
    static void save(LoadResult r, Path file) throws IOException {
        LoadCounts counts = r.counts();
        Histogram ok = r.okLatency();
        Properties p = new Properties();
        p.setProperty("targetRate", Double.toString(r.targetRate()));
        p.setProperty("achievedRate", Double.toString(r.achievedRate()));
        p.setProperty("throughput", Double.toString(r.throughput()));
        LoadCounts.COUNTERS.forEach(k -> p.setProperty(k.key(), Long.toString(k.get().applyAsLong(counts))));
        counts.otherStatuses.forEach((s, n) -> p.setProperty("status." + s, Long.toString(n)));
        p.setProperty("timelineMaxMicros", join(counts.timelineMaxMicros));
        p.setProperty("timelineShed", join(counts.timelineShed));
        p.setProperty("okHistogram", encode(ok));
        p.setProperty("allHistogram", encode(r.allLatency()));
        for (int i = 0; i < LoadResult.PERCENTILES.length; i++) {
            p.setProperty("ok." + LoadResult.PERCENTILE_LABELS[i] + ".micros",
                Long.toString(r.okPercentileMicros(LoadResult.PERCENTILES[i])));
        }
        p.setProperty("ok.max.micros", Long.toString(ok.getTotalCount() == 0 ? 0 : ok.getMaxValue()));
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "OpenLoopLoad result; latencies in microseconds from the intended send time");
        }
    }

    /** Reads a result written by {@link #save}. */
    static LoadResult load(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        LoadCounts c = new LoadCounts();
        LoadCounts.COUNTERS.forEach(k -> k.set().accept(c, num(p, k.key())));
        for (String key : p.stringPropertyNames()) {
            if (key.startsWith("status.")) {
                c.otherStatuses.put(Integer.valueOf(key.substring(7)), num(p, key));
            }
        }
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
}
