package io.bladegc.benchmarks.suite.harness;

import java.io.FileNotFoundException;
import java.io.PrintStream;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

/**
 * A measured window's latencies, microseconds, 3 significant digits: recorded from any thread, written by the load's
 * own thread as an HdrHistogram interval log ({@code <arm>-rep<N>.hlog}, one histogram per {@link #flush()}, which
 * the load calls once a second), and added up into the window's {@link #total()}. Latencies above the maximum are
 * recorded as the maximum.
 *
 * <p>Thread-safe for that use: {@link #record} from any thread; {@link #start}, {@link #flush}, {@link #total} and
 * {@link #close} from the load's thread.
 */
public final class IntervalHistogramLog implements AutoCloseable {
    private final long maxMicros;
    private final Recorder recorder;
    private final PrintStream out;
    private final HistogramLogWriter log;
    private final Histogram total;
    private Histogram interval;

    /**
     * Opens {@code file} (replacing it) and writes the log's header.
     *
     * @param file      the interval log
     * @param comment   the log's comment line, what it records
     * @param maxMicros the longest latency recorded
     */
    public IntervalHistogramLog(Path file, String comment, long maxMicros) throws FileNotFoundException {
        this.maxMicros = maxMicros;
        this.recorder = new Recorder(maxMicros, 3);
        this.total = new Histogram(maxMicros, 3);
        this.out = new PrintStream(file.toFile());
        this.log = new HistogramLogWriter(out);
        log.outputComment(comment);
        log.outputLogFormatVersion();
    }

    /**
     * Starts the log's clock at the window's start: its base and start time, and the legend; the first interval
     * starts now (not when the log was opened, before the warm-up).
     */
    public void start(long epochMillis) {
        interval = recorder.getIntervalHistogram(interval);
        log.setBaseTime(epochMillis);
        log.outputStartTime(epochMillis);
        log.outputLegend();
    }

    /** Records one latency (clamped to 0..max). */
    public void record(long micros) {
        recorder.recordValue(Math.min(maxMicros, Math.max(0, micros)));
    }

    /** Writes what was recorded since the last flush as one interval histogram and adds it to the total. */
    public void flush() {
        interval = recorder.getIntervalHistogram(interval);
        log.outputIntervalHistogram(interval);
        total.add(interval);
    }

    /** @return every latency flushed so far (the log's own histogram: copy it to keep it past a later flush) */
    public Histogram total() {
        return total;
    }

    @Override
    public void close() {
        out.close();
    }
}
