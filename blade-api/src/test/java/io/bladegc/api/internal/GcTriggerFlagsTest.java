package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Forcing an old collection in a child JVM, with and without -XX:+DisableExplicitGC, under each STW collector. */
class GcTriggerFlagsTest {

    @ParameterizedTest
    @ValueSource(strings = {"Serial", "Parallel", "G1"})
    void systemGcForcesAnOldCollection(String collector) throws Exception {
        assertThat(run("-XX:+Use" + collector + "GC")).contains("forced=true").contains("cause=System.gc()");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Serial", "Parallel", "G1"})
    void disableExplicitGcFallsBackToTheDiagnosticCommand(String collector) throws Exception {
        assertThat(run("-XX:+Use" + collector + "GC", "-XX:+DisableExplicitGC"))
            .contains("forced=true").contains("cause=Diagnostic Command");
    }

    private static String run(String... flags) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx64m");
        cmd.addAll(List.of(flags));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ForceOldMain.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child JVM finished").isTrue();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(out).isZero();
            return out;
        } finally {
            p.destroyForcibly();
        }
    }
}
