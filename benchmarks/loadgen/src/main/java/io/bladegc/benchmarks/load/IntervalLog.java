package io.bladegc.benchmarks.load;

import java.io.FileNotFoundException;
import java.io.PrintStream;
import java.nio.file.Path;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * An HdrHistogram interval log of a run's measured 2xx latencies (microseconds): one compressed histogram per
 * second, readable with {@code HistogramLogReader} or HdrHistogram's log processor and plotter, so that a run can be
 * looked at second by second after the fact. Recording allocates nothing; writing (once a second) does, a little.
 *
 * <p>Not thread-safe: the load generator's event loop owns it (through {@link LoadTally}, under its lock).
 */
final class IntervalLog implements AutoCloseable {
    private static final long INTERVAL_MILLIS = 1_000;

    private final PrintStream out;
    private final HistogramLogWriter writer;
    private final Histogram interval = new Histogram(OpenLoopLoad.MAX_LATENCY_MICROS, 3);
    private long intervalStartMillis = -1;

    /** Opens {@code file} (replacing it) and writes the log's header. */
    IntervalLog(Path file) throws FileNotFoundException {
        this.out = new PrintStream(file.toFile());
        this.writer = new HistogramLogWriter(out);
        writer.outputComment("open-loop load: latency of 2xx answers, microseconds, from each intended send time");
        writer.outputLogFormatVersion();
    }

    /** Records one latency into the current interval; starts the log's clock at the first one. */
    void record(long micros, long nowMillis) {
        if (intervalStartMillis < 0) {
            intervalStartMillis = nowMillis;
            writer.setBaseTime(nowMillis);
            writer.outputStartTime(nowMillis);
            writer.outputLegend();
        }
        interval.recordValue(micros);
        flushIfDue(nowMillis);
    }

    /** Writes the current interval when a second has passed since it began. */
    void flushIfDue(long nowMillis) {
        if (intervalStartMillis >= 0 && nowMillis - intervalStartMillis >= INTERVAL_MILLIS) {
            write(nowMillis);
        }
    }

    /** Writes what is left as a last, shorter interval and closes the file. */
    @Override
    public void close() {
        if (intervalStartMillis >= 0 && interval.getTotalCount() > 0) {
            write(System.currentTimeMillis());
        }
        out.close();
    }

    private void write(long nowMillis) {
        interval.setStartTimeStamp(intervalStartMillis);
        interval.setEndTimeStamp(nowMillis);
        writer.outputIntervalHistogram(interval);
        interval.reset();
        intervalStartMillis = nowMillis;
    }
}
