package io.bladegc.benchmarks.suite.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a concurrent collector made requests wait for in a stretch of wall-clock time, read from its GC log
 * ({@code -Xlog:gc} with the {@code time} decoration, as {@link Arm#serverFlags} writes it): generational ZGC's
 * allocation and relocation stalls ({@code Allocation Stall (main) 51.427ms}) and Shenandoah's degenerated and full
 * pauses ({@code GC(6) Pause Full 36M->33M(46M) 40.876ms}), each line counted and its time summed. That is where a
 * concurrent collector fails at a tight heap. Stop-the-world collectors' pauses are their ordinary work and are not
 * counted here (see {@link #counts}). Immutable.
 *
 * @param count  stalls and degenerated or full pauses
 * @param millis their time added up, milliseconds
 */
public record ConcurrentStalls(long count, double millis) {
    /** No stall. */
    public static final ConcurrentStalls NONE = new ConcurrentStalls(0, 0);
    private static final Pattern LINE = Pattern.compile("^\\[([^\\]]+)\\]\\[[^\\]]*\\]\\[[a-z]+\\s*\\]\\[gc\\s*\\] "
        + "(?:GC\\(\\d+\\) )?(?:Allocation Stall|Relocation Stall|Pause Degenerated|Pause Full)\\b.* ([0-9.]+)ms$");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ",
        Locale.ROOT);

    /** @return whether a JVM with these flags runs a collector whose stalls this counts (ZGC, Shenandoah) */
    public static boolean counts(List<String> jvmFlags) {
        return jvmFlags.contains("-XX:+UseZGC") || jvmFlags.contains("-XX:+UseShenandoahGC");
    }

    /**
     * @param logDir where the JVM's GC log is ({@code gc-<pid>.log}, with the JVM's rotated {@code .0} to {@code .4})
     * @param pid    the JVM's process id
     * @param from   the stretch's start, inclusive
     * @param to     its end, exclusive
     * @return the stalls logged in that stretch
     * @throws IOException when a log cannot be read
     */
    public static ConcurrentStalls read(Path logDir, long pid, Instant from, Instant to) throws IOException {
        String name = "gc-" + pid + ".log";
        ConcurrentStalls sum = NONE;
        try (Stream<Path> files = Files.list(logDir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(name)).toList()) {
                sum = sum.plus(parse(Files.readString(f), from, to));
            }
        }
        return sum;
    }

    /** @return the stalls in a GC log's text from {@code from} (inclusive) to {@code to} (exclusive) */
    static ConcurrentStalls parse(String log, Instant from, Instant to) {
        long count = 0;
        double millis = 0;
        for (String line : log.split("\n")) {
            Matcher m = LINE.matcher(line.stripTrailing());
            if (m.matches()) {
                Instant at = OffsetDateTime.parse(m.group(1), TIME).toInstant();
                if (!at.isBefore(from) && at.isBefore(to)) {
                    count++;
                    millis += Double.parseDouble(m.group(2));
                }
            }
        }
        return new ConcurrentStalls(count, millis);
    }

    /** @return both added up */
    public ConcurrentStalls plus(ConcurrentStalls other) {
        return new ConcurrentStalls(count + other.count, millis + other.millis);
    }

    /** @return e.g. {@code 3 (154 ms)}, or {@code 0} */
    public String text() {
        return count == 0 ? "0" : String.format(Locale.ROOT, "%d (%.0f ms)", count, millis);
    }
}
