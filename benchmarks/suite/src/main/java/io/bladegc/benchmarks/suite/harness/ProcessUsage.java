package io.bladegc.benchmarks.suite.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a process has used so far, read from Linux's {@code /proc}: CPU time (user + system, from
 * {@code /proc/<pid>/stat}) and peak resident memory ({@code VmHWM} in {@code /proc/<pid>/status}). Two readings
 * around a measured window give its CPU seconds; the peak is since the process started. Immutable.
 *
 * @param cpuSeconds user + system CPU time of all its threads so far
 * @param peakRssKib the most resident memory it has had, KiB
 */
public record ProcessUsage(double cpuSeconds, long peakRssKib) {
    /** Clock ticks per second of {@code /proc/<pid>/stat}'s times: 100 on every Linux this runs on (USER_HZ). */
    static final int TICKS_PER_SECOND = 100;

    /**
     * @param pid a live process
     * @throws IOException when {@code /proc} cannot be read (not Linux, or the process is gone)
     */
    public static ProcessUsage of(long pid) throws IOException {
        return parse(Files.readString(Path.of("/proc", Long.toString(pid), "stat")),
            Files.readString(Path.of("/proc", Long.toString(pid), "status")));
    }

    /** @return the usage in the two files' texts */
    static ProcessUsage parse(String stat, String status) {
        // "pid (comm) state ...": comm may hold spaces and parentheses, so fields count from the last ')'
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime: fields 14 and 15 of stat
        long hwm = -1;
        for (String line : status.split("\n")) {
            if (line.startsWith("VmHWM:")) {
                hwm = Long.parseLong(line.substring(6).trim().split("\\s+")[0]);
            }
        }
        if (hwm < 0) {
            throw new IllegalArgumentException("no VmHWM line in the status file");
        }
        return new ProcessUsage(ticks / (double) TICKS_PER_SECOND, hwm);
    }

    /** @return the CPU seconds used since {@code earlier}, with this reading's peak */
    public ProcessUsage since(ProcessUsage earlier) {
        return new ProcessUsage(cpuSeconds - earlier.cpuSeconds, peakRssKib);
    }
}
