package io.bladegc.benchmarks.suite.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The whole machine's CPU time so far, from the first line of Linux's {@code /proc/stat} (all cores, in clock ticks
 * of {@value ProcessUsage#TICKS_PER_SECOND} per second): what was busy (user, nice, system, irq, softirq), and what
 * the hypervisor took for others (steal). Two readings around a window tell how many cores were busy in it, whoever
 * used them: this suite's processes or anything else on the machine. Immutable.
 *
 * @param busyTicks  user + nice + system + irq + softirq
 * @param stealTicks steal
 */
public record MachineCpu(long busyTicks, long stealTicks) {
    /** @throws IOException when {@code /proc/stat} cannot be read (not Linux) */
    public static MachineCpu now() throws IOException {
        return parse(Files.readString(Path.of("/proc/stat")));
    }

    /** @return the reading in a {@code /proc/stat} text */
    static MachineCpu parse(String stat) {
        String first = stat.lines().findFirst().orElse("");
        if (!first.startsWith("cpu ")) {
            throw new IllegalArgumentException("no cpu line first in /proc/stat: " + first);
        }
        String[] f = first.substring(4).trim().split("\\s+");
        long busy = 0;
        for (int i : new int[] {0, 1, 2, 5, 6}) { // user nice system (idle iowait) irq softirq
            busy += Long.parseLong(f[i]);
        }
        return new MachineCpu(busy, f.length > 7 ? Long.parseLong(f[7]) : 0);
    }

    /** @return the ticks since {@code earlier} */
    public MachineCpu since(MachineCpu earlier) {
        return new MachineCpu(busyTicks - earlier.busyTicks, stealTicks - earlier.stealTicks);
    }

    /** @return how many cores were busy on average over {@code seconds}, from these ticks */
    public double busyCores(double seconds) {
        return busyTicks / (double) ProcessUsage.TICKS_PER_SECOND / seconds;
    }

    /** @return how many cores the hypervisor took on average over {@code seconds}, from these ticks */
    public double stealCores(double seconds) {
        return stealTicks / (double) ProcessUsage.TICKS_PER_SECOND / seconds;
    }
}
