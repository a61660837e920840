package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The padded average the agent keeps is Parallel's own: a child JVM on Parallel logs, at {@code gc+ergo} trace, what
 * each young collection promoted and (most of the time) its padded average promotion after it, and keeps a
 * {@link PromotionAverage} from the collection notifications ({@link PromotionAverageMain}); the two must agree.
 */
class PromotionAverageJvmTest {
    private static final Pattern JVM_SAMPLE = Pattern.compile("GC\\((\\d+)\\) AdaptiveSizePolicy::update_averages: .*"
        + "promoted: (\\d+)");
    private static final Pattern JVM_PADDED = Pattern.compile("GC\\((\\d+)\\) avg_promoted_padded_avg: (\\d+)");
    private static final Pattern OURS = Pattern.compile("promoted=(\\d+) padded=(\\d+)");

    @Test
    void theWatchersPaddedAverageIsParallelsOwn(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("gc.log");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:+UseParallelGC", "-Xmx256m", "-Xmn16m", "-XX:MaxTenuringThreshold=1",
            "-Xlog:gc+ergo=trace:file=" + log, "-cp", System.getProperty("java.class.path"),
            PromotionAverageMain.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out;
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child JVM finished").isTrue();
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(out).isZero();
        } finally {
            p.destroyForcibly();
        }
        String jvmLog = Files.readString(log);
        List<long[]> samples = all(JVM_SAMPLE, jvmLog); // GC id, promoted
        Map<Long, Long> padded = new HashMap<>();
        all(JVM_PADDED, jvmLog).forEach(g -> padded.put(g[0], g[1]));
        List<long[]> ours = all(OURS, out); // promoted, padded
        // the child stops listening once its allocations are seen; a collection after that is the JVM's alone
        assertThat(ours).as(out).hasSizeGreaterThan(20);
        assertThat(samples).hasSizeGreaterThanOrEqualTo(ours.size());
        assertThat(ours.stream().map(o -> o[0]).distinct().count()).as("promotion varied").isGreaterThan(10);
        int compared = 0;
        for (int i = 0; i < ours.size(); i++) {
            assertThat(ours.get(i)[0]).as("promoted by young collection %d", i + 1).isEqualTo(samples.get(i)[1]);
            Long jvm = padded.get(samples.get(i)[0]);
            if (jvm != null) {
                // HotSpot keeps the average in single precision: agree to a ten-thousandth
                assertThat((double) ours.get(i)[1]).as("padded average after young collection %d", i + 1)
                    .isBetween(jvm * 0.9999 - 1, jvm * 1.0001 + 1);
                compared++;
            }
        }
        assertThat(compared).as("padded averages the JVM logged").isGreaterThan(ours.size() / 2);
    }

    private static List<long[]> all(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.results().map(r -> new long[] {Long.parseLong(r.group(1)), Long.parseLong(r.group(2))}).toList();
    }
}
