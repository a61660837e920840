package io.bladegc.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildJvmTest {
    @TempDir
    Path dir;

    @Test
    void runReturnsTheChildsOutputAndExitStatus() throws Exception {
        ChildJvm.Run r = ChildJvm.run(ChildJvm.currentJava(), Map.of(), ExitingMain.class, "-Dtestkit.value=42");

        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.stdoutLines()).containsExactly("property 42");
        assertThat(r.bladeLines()).containsExactly("[blade] not really the agent");
    }

    @Test
    void awaitReadyFailsWithTheLogWhenTheChildExitsFirst() throws Exception {
        Path log = dir.resolve("child.log");
        try (ChildProcess child = ChildProcess.start("exiting", List.of(ChildJvm.currentJava().toString(), "-cp",
                System.getProperty("java.class.path"), ExitingMain.class.getName()), log, log)) {
            assertThatThrownBy(() -> child.awaitReady(() -> false, Duration.ofSeconds(30), "never"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exiting exited (status 3) before never")
                .hasMessageContaining("property null");
            assertThat(child.exitStatus()).isEqualTo(3);
        }
    }

    @Test
    void closeStopsARunningChild() throws Exception {
        Path log = dir.resolve("sleep.log");
        ChildProcess child = ChildProcess.start("sleeper", List.of("sleep", "60"), log, log);
        assertThat(child.isAlive()).isTrue();

        child.close();

        assertThat(child.isAlive()).isFalse();
        assertThat(child.awaitExit(Duration.ZERO)).isTrue();
    }
}
