package io.bladegc.benchmarks.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.commandline.ToolRun;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClusterDemoOptionsTest {
    private static final String[] JARS = {"--agent-jar", "a.jar", "--coordinator-jar", "c.jar"};

    private static ClusterDemoOptions parse(String... more) {
        String[] args = new String[JARS.length + more.length];
        System.arraycopy(JARS, 0, args, 0, JARS.length);
        System.arraycopy(more, 0, args, JARS.length, more.length);
        return ClusterDemoOptions.parse(args);
    }

    @Test
    void defaults() {
        assertThat(parse()).isEqualTo(new ClusterDemoOptions(Path.of("a.jar"), Path.of("c.jar"),
            java.util.List.of("g1", "parallel", "blade"), 600, Duration.ofSeconds(15), Duration.ofSeconds(45),
            Path.of("haproxy"), Path.of("benchmarks", "target", "cluster-demo")));
    }

    @Test
    void armsBySpacesOrCommasWithRepeats() {
        ClusterDemoOptions o = parse("--arms", "blade, g1 blade", "--rate", "300", "--warmup", "0s", "--duration",
            "2m");
        assertThat(o.arms()).containsExactly("blade", "g1", "blade");
        assertThat(o.rate()).isEqualTo(300);
        assertThat(o.warmup()).isZero();
        assertThat(o.duration()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void badValuesAreNamed() {
        assertThatThrownBy(() -> parse("--arms", "g1,zgc"))
            .hasMessage("Invalid value for option '--arms': 'zgc' is not an arm (use g1, parallel, blade)");
        assertThatThrownBy(() -> ClusterDemoOptions.parse("--agent-jar", "a.jar"))
            .hasMessage("Missing required option: '--coordinator-jar=JAR'");
        assertThatThrownBy(() -> parse("--rate", "0", "--duration", "0s"))
            .hasMessageContaining("'--rate': '0.0' is not a positive rate")
            .hasMessageContaining("'--duration': 'PT0S' is not positive");
        assertThatThrownBy(() -> parse("--rate")).hasMessage("Missing required parameter for option '--rate'"
            + " (PER_SECOND)");
    }

    @Test
    void helpAndUsageErrorsAreTheSharedOnes() {
        ToolRun.of(new ClusterDemoOptions.Flags(), "-h").isHelpOf("ClusterDemo", "--agent-jar=JAR",
            "--arms=ARMS", "g1,parallel,blade)", "--warmup=DURATION", "(default 15s)", "--out=DIR");
        ToolRun.of(new ClusterDemoOptions.Flags(), "--agent-jar", "a.jar", "--warmup", "soon")
            .isUsageError("ClusterDemo",
                "Invalid value for option '--warmup': 'soon': expected a duration such as 20ms or 1s",
                "Missing required option: '--coordinator-jar=JAR'");
    }
}
