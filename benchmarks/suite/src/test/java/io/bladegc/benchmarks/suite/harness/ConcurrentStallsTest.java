package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConcurrentStallsTest {
    /** Lines as JDK 25 wrote them with -Xlog:gc*:file=...:time,uptime,level,tags (ZGC, then generational Shenandoah) */
    private static final String LOG = String.join("\n",
        "[2026-11-30T12:12:39.793+0000][2.520s][info][gc          ] GC(3) Minor Collection (Allocation Stall)",
        "[2026-11-30T12:12:39.844+0000][2.572s][info][gc          ] Allocation Stall (main) 51.427ms",
        "[2026-11-30T12:12:39.844+0000][2.572s][info][gc          ] Relocation Stall (main) 0.153ms",
        "[2026-11-30T12:12:39.848+0000][2.576s][info][gc,alloc    ] GC(3) y: Allocation Stalls:          1"
            + "                1                0                1         ",
        "[2026-11-30T12:12:41.060+0000][0.840s][info][gc          ] GC(0) Pause Init Mark (Young) 0.035ms",
        "[2026-11-30T12:12:42.049+0000][1.829s][info][gc,start       ] GC(6) Pause Full",
        "[2026-11-30T12:12:42.050+0000][1.830s][info][gc             ] GC(6) Pause Full 36M->33M(46M) 40.876ms",
        "[2026-11-30T12:12:42.051+0000][1.831s][info][gc,stats       ] Pause Full GC (G)                 17111 us",
        "[2026-11-30T12:12:43.000+0000][2.780s][info][gc             ] GC(9) Pause Degenerated GC (Mark)"
            + " 40M->35M(46M) 12.500ms",
        "");

    @Test
    void stallsAndDegeneratedOrFullPausesAreCountedNotTheOrdinaryPausesNorTheStatistics() {
        ConcurrentStalls all = ConcurrentStalls.parse(LOG, Instant.parse("2026-11-30T12:00:00Z"),
            Instant.parse("2026-11-30T13:00:00Z"));

        assertThat(all.count()).isEqualTo(4);
        assertThat(all.millis()).isCloseTo(51.427 + 0.153 + 40.876 + 12.5, within(1e-9));
        assertThat(all.text()).isEqualTo("4 (105 ms)");
    }

    @Test
    void onlyTheLinesInsideTheStretchCount() {
        ConcurrentStalls shenandoah = ConcurrentStalls.parse(LOG, Instant.parse("2026-11-30T12:12:42.050Z"),
            Instant.parse("2026-11-30T12:12:43Z"));

        assertThat(shenandoah).isEqualTo(new ConcurrentStalls(1, 40.876));
        assertThat(ConcurrentStalls.parse(LOG, Instant.parse("2026-11-30T12:12:44Z"),
            Instant.parse("2026-11-30T12:13:00Z")).text()).isEqualTo("0");
    }

    @Test
    void theRotatedLogsOfThatProcessAreReadTooAndNoOtherProcesses(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("gc-42.log"), LOG);
        Files.writeString(dir.resolve("gc-42.log.0"), LOG);
        Files.writeString(dir.resolve("gc-421.log"), LOG);

        ConcurrentStalls read = ConcurrentStalls.read(dir, 42, Instant.parse("2026-11-30T12:12:39Z"),
            Instant.parse("2026-11-30T12:12:40Z"));

        assertThat(read.count()).isEqualTo(4);
    }

    @Test
    void countedForTheConcurrentCollectorsOnly() {
        assertThat(ConcurrentStalls.counts(List.of("-XX:+UseZGC", "-Xmx1g"))).isTrue();
        assertThat(ConcurrentStalls.counts(List.of("-XX:+UseShenandoahGC"))).isTrue();
        assertThat(ConcurrentStalls.counts(List.of("-XX:+UseG1GC"))).isFalse();
        assertThat(ConcurrentStalls.counts(List.of("-XX:+UseParallelGC"))).isFalse();
    }
}
