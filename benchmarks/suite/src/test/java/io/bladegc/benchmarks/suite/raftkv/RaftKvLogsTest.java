package io.bladegc.benchmarks.suite.raftkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftKvLogsTest {
    private static final String PARALLEL = """
        [0.010s][info][gc,init] Heap Max Capacity: 1G
        [2.000s][info][gc,start    ] GC(0) Pause Young (Allocation Failure)
        [2.010s][info][gc,heap     ] GC(0) PSYoungGen: 262144K->20000K(305664K)
        [2.010s][info][gc          ] GC(0) Pause Young (Allocation Failure) 300M->100M(981M) 10.123ms
        [4.000s][info][gc          ] GC(1) Pause Young (Allocation Failure) 350M->120M(981M) 25.5ms
        [8.000s][info][gc          ] GC(2) Pause Full (Ergonomics) 400M->150M(981M) 120.000ms
        """;
    private static final String G1 = """
        [1.500s][info][gc          ] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 150M->30M(1024M) 5.2ms
        [1.900s][info][gc          ] GC(4) Pause Remark 60M->60M(1024M) 1.1ms
        [2.000s][info][gc          ] GC(4) Pause Cleanup 60M->60M(1024M) 0.1ms
        [2.000s][info][gc,marking  ] GC(4) Concurrent Cleanup for Next Mark 0.5ms
        """;

    @Test
    void countsCollectionsWithAPauseOncePerId() {
        assertThat(RaftKvLogs.collections(PARALLEL)).isEqualTo(3);
        assertThat(RaftKvLogs.collections(G1)).isEqualTo(2);
        assertThat(RaftKvLogs.collections("")).isZero();
    }

    @Test
    void findsTheLongestPause() {
        assertThat(RaftKvLogs.longestPauseMs(PARALLEL)).isEqualTo(120.0);
        assertThat(RaftKvLogs.longestPauseMs("")).isZero();
    }

    @Test
    void allocationIsTheHeapBeforeEachPauseLessAfterThePreviousOverTheUptime() {
        // 300 + (350 - 100) + (400 - 120) = 830 MiB in 8 s
        assertThat(RaftKvLogs.allocationMibPerSecond(PARALLEL)).isCloseTo(830 / 8.0, within(1e-9));
        assertThat(RaftKvLogs.allocationMibPerSecond("no pauses")).isNaN();
    }

    @Test
    void readsLinesThatBeginWithTheWallClockTime() {
        String timed = PARALLEL.lines().map(l -> "[2026-11-29T23:51:34.456+0000]" + l)
            .collect(Collectors.joining("\n", "", "\n"));
        assertThat(RaftKvLogs.collections(timed)).isEqualTo(3);
        assertThat(RaftKvLogs.allocationMibPerSecond(timed)).isCloseTo(830 / 8.0, within(1e-9));
    }

    @Test
    void namesTheGroupAsBladeDoes() {
        assertThat(RaftKvLogs.groupShort("group-0123456789ABCDEF")).isEqualTo("456789ABCDEF");
        assertThat(RaftKvLogs.groupShort("short")).isEqualTo("short");
    }

    @Test
    void readsWhatWasWrittenAfterAnOffset(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("log");
        assertThat(RaftKvLogs.offset(f)).isZero();
        assertThat(RaftKvLogs.since(f, 0)).isEmpty();
        Files.writeString(f, "before\n");
        long at = RaftKvLogs.offset(f);
        Files.writeString(f, "before\nafter\n");
        assertThat(RaftKvLogs.since(f, at)).isEqualTo("after\n");
    }
}
