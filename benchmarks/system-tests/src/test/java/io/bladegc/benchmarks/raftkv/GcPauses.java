package io.bladegc.benchmarks.raftkv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM's stop-the-world pauses as the JVM itself logged them ({@code -Xlog:gc:file=...:timemillis}: the line of each
 * pause, {@code [1732483540123ms] GC(3) Pause Young (Allocation Failure) 60M->10M(123M) 12.345ms}, is written as the
 * pause ends), on the wall clock every process of this machine shares: a record independent of Blade's own log.
 *
 * @param peer         whose
 * @param startMillis  when it began (the end less its duration), epoch milliseconds
 * @param endMillis    when it ended
 * @param what         the line's text after the time
 */
record GcPauses(String peer, double startMillis, double endMillis, String what) {
    private static final Pattern PAUSE = Pattern.compile("(?m)^\\[(\\d+)ms\\] (GC\\(\\d+\\) Pause .* ([0-9.]+)ms)$");

    /** The JVM flag that writes the log this reads. */
    static String flag(Path log) {
        return "-Xlog:gc:file=" + log.toAbsolutePath() + ":timemillis";
    }

    /** @return every pause in {@code log}, in order */
    static List<GcPauses> read(String peer, Path log) throws IOException {
        List<GcPauses> out = new ArrayList<>();
        if (!Files.exists(log)) {
            return out;
        }
        Matcher m = PAUSE.matcher(Files.readString(log));
        while (m.find()) {
            double end = Long.parseLong(m.group(1));
            out.add(new GcPauses(peer, end - Double.parseDouble(m.group(3)), end, m.group(2)));
        }
        return out;
    }

    /** @return whether this pause and {@code other} were under way at the same moment */
    boolean overlaps(GcPauses other) {
        return startMillis < other.endMillis && other.startMillis < endMillis;
    }

    double millis() {
        return endMillis - startMillis;
    }
}
