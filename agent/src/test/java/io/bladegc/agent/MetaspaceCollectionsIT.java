package io.bladegc.agent;

import static io.bladegc.testkit.ChildJvm.currentJava;
import static io.bladegc.testkit.ChildJvm.javaagent;
import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.testapp.ClassLoadingApp;
import io.bladegc.testkit.ChildJvm;
import io.bladegc.testkit.ChildJvm.Run;
import java.util.Arrays;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A service that loads classes steadily under allocation load, with the agent and without, side by side: collections
 * for Metaspace's threshold come between the heap's own, at whatever eden holds. Blade must neither take such a
 * collection for where this JVM collects (it then forced young collections of a nearly empty eden, several in a row)
 * nor count it as an escape: it counts it under its own cause.
 */
class MetaspaceCollectionsIT {
    private static final Pattern GAPS = Pattern.compile("^gaps: ([0-9,]*)$", Pattern.MULTILINE);
    private static final Pattern METASPACE = Pattern.compile("^metaspace collections: (\\d+)$", Pattern.MULTILINE);
    private static final Pattern OTHER = Pattern.compile("OtherCause=(\\d+)");

    @ParameterizedTest
    @ValueSource(strings = {"Parallel", "G1"})
    void metaspaceCollectionsAreCountedApartAndNeverTeachTheTrigger(String collector) throws Exception {
        String[] flags = {"-XX:+Use" + collector + "GC", "-Xmx256m", "-Xmn32m", "-XX:MetaspaceSize=12m",
            "-XX:ParallelGCThreads=1", "-XX:ConcGCThreads=1"};
        Run alone = ChildJvm.run(currentJava(), Map.of(), ClassLoadingApp.class, flags);
        String[] withBlade = Arrays.copyOf(flags, flags.length + 1);
        withBlade[flags.length] = javaagent(null);
        Run blade = ChildJvm.run(currentJava(), Map.of(), ClassLoadingApp.class, withBlade);
        assertThat(alone.exitCode()).as("%s", alone).isZero();
        assertThat(blade.exitCode()).as("%s", blade).isZero();

        long[] own = gaps(alone);
        long[] planned = gaps(blade);
        assertThat(own).as("the JVM's own young collections: %s", alone).hasSizeGreaterThan(10);
        long median = Arrays.stream(own).sorted().toArray()[own.length / 2];
        int metaspace = number(METASPACE, blade);
        assertThat(metaspace).as("collections for Metaspace's threshold in the run with Blade: %s", blade)
            .isGreaterThanOrEqualTo(3);
        // Blade asks a few milliseconds before eden is full (here, at 100 MB/s, a few hundred KiB early), so its
        // young collections come about as far apart as the JVM's own: in quiet runs (2026-11-27) its median gap was
        // 0.85x (Parallel) and 0.91x (G1) the JVM's own median and its shortest 0.71x and 0.74x; the bounds leave
        // room for a busy machine, where the rate Blade plans for jumps with the application's bursts. Before Blade
        // learned its delays (20 ms of margin, two 5 ms samples) it asked with eden about half full.
        long[] sortedPlanned = Arrays.stream(planned).sorted().toArray();
        assertThat(sortedPlanned[sortedPlanned.length / 2])
            .as("median KiB between two young collections with Blade, against the JVM's own median %d KiB: %s",
                median, blade)
            .isGreaterThanOrEqualTo(median * 75 / 100);
        assertThat(sortedPlanned[0])
            .as("fewest KiB between two young collections with Blade, against the JVM's own median %d KiB: %s",
                median, blade)
            .isGreaterThanOrEqualTo(median * 6 / 10);
        assertThat(number(OTHER, blade)).as("collections counted under another cause: %s", blade)
            .isEqualTo(metaspace);
    }

    private static long[] gaps(Run r) {
        Matcher m = GAPS.matcher(r.stdout());
        assertThat(m.find()).as("a gaps line: %s", r).isTrue();
        return m.group(1).isEmpty() ? new long[0]
            : Arrays.stream(m.group(1).split(",")).mapToLong(Long::parseLong).toArray();
    }

    private static int number(Pattern p, Run r) {
        Matcher m = p.matcher(r.stdout());
        assertThat(m.find()).as("%s in %s", p, r).isTrue();
        return Integer.parseInt(m.group(1));
    }
}
