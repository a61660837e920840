package io.bladegc.agent;

import static io.bladegc.agent.ChildJvm.currentJava;
import static io.bladegc.agent.ChildJvm.javaagent;
import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.ChildJvm.Run;
import io.bladegc.agent.testapp.ClassLoadingApp;
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
        // Blade asks for a young collection when eden is at least half full (its lead time is capped there), so no
        // two of its young collections come closer than half the JVM's own spacing, less what varies from one
        // collection to the next
        assertThat(Arrays.stream(planned).min().orElseThrow())
            .as("KiB allocated between two young collections with Blade, against the JVM's own median %d KiB: %s",
                median, blade)
            .isGreaterThanOrEqualTo(median * 4 / 10);
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
