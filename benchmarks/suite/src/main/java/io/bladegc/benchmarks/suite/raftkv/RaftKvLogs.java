package io.bladegc.benchmarks.suite.raftkv;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the {@code raft-kv} scenario reads from a peer's logs: collections, their pauses and the allocation they show
 * in a {@code -Xlog:gc*} log (the {@code [gc]} lines {@code GC(n) Pause ... 300M->100M(1024M) 12.3ms}, as Parallel and
 * G1 write them, with the uptime first or after the wall-clock time); the part of a log written after an offset
 * ({@link #since}), e.g. during a window; the group's name in Blade's lines. Leadership changes in a peer's output:
 * {@link RaftKvLeadership}. Stateless.
 */
final class RaftKvLogs {
    private static final Pattern PAUSE = Pattern.compile(
        "(?m)^(?:\\[[^\\]]*\\])?\\[([0-9.]+)s\\].*\\[gc\\s*\\] GC\\((\\d+)\\) Pause.* (\\d+)M->(\\d+)M\\(\\d+M\\)"
            + " ([0-9.]+)ms$");

    private RaftKvLogs() {
    }

    /** @return the file's length now, 0 when it does not exist yet: where a window starts */
    static long offset(Path file) throws IOException {
        return Files.exists(file) ? Files.size(file) : 0;
    }

    /** @return what was written to {@code file} after {@code offset} (UTF-8) */
    static String since(Path file, long offset) throws IOException {
        if (!Files.exists(file)) {
            return "";
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            byte[] bytes = new byte[(int) Math.max(0, f.length() - offset)];
            f.seek(offset);
            f.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** @return how many collections paused the JVM in {@code gcLog} (distinct {@code GC(n)} ids with a pause) */
    static int collections(String gcLog) {
        Set<String> ids = new HashSet<>();
        Matcher m = PAUSE.matcher(gcLog);
        while (m.find()) {
            ids.add(m.group(2));
        }
        return ids.size();
    }

    /** @return the longest pause in {@code gcLog}, ms, 0 when none */
    static double longestPauseMs(String gcLog) {
        double longest = 0;
        Matcher m = PAUSE.matcher(gcLog);
        while (m.find()) {
            longest = Math.max(longest, Double.parseDouble(m.group(5)));
        }
        return longest;
    }

    /**
     * @param gcLog a whole GC log, from the JVM's start
     * @return the heap allocated per second up to the last pause, MiB/s: the sum over pauses of the heap before it
     *     less the heap after the one before, over the JVM's uptime at the last pause; NaN with no pause
     */
    static double allocationMibPerSecond(String gcLog) {
        long allocated = 0;
        long after = 0;
        double uptime = Double.NaN;
        Matcher m = PAUSE.matcher(gcLog);
        while (m.find()) {
            allocated += Math.max(0, Long.parseLong(m.group(3)) - after);
            after = Long.parseLong(m.group(4));
            uptime = Double.parseDouble(m.group(1));
        }
        return Double.isNaN(uptime) || uptime <= 0 ? Double.NaN : allocated / uptime;
    }

    /** @return the group's name in Blade's lines: the last 12 characters of its {@code toString()} */
    static String groupShort(Object groupId) {
        String s = groupId.toString();
        return s.length() > 12 ? s.substring(s.length() - 12) : s;
    }
}
