package io.bladegc.benchmarks.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.benchmarks.suite.harness.Workload;
import io.bladegc.commandline.ToolRun;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SuiteOptionsTest {
    @Test
    void quickIsOneShortRepetitionAndTheFullRunThreeOfAMinute() {
        SuiteOptions quick = SuiteOptions.parse("http-cluster", "--quick", "--agent-jar", "a.jar",
            "--coordinator-jar", "c.jar", "--out", "out");
        assertThat(quick.quick()).isTrue();
        assertThat(quick.repetitions()).isEqualTo(1);
        assertThat(quick.measure()).isEqualTo(Duration.ofSeconds(6));
        assertThat(quick.agentJar()).isEqualTo(Path.of("a.jar"));
        assertThat(quick.command()).isEqualTo("SuiteMain http-cluster --quick --agent-jar a.jar --coordinator-jar"
            + " c.jar --out out");
        SuiteOptions full = SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar",
            "--out", "out", "--rate", "500", "--command", "benchmarks/run.sh http-cluster");
        assertThat(full.repetitions()).isEqualTo(3);
        assertThat(full.measure()).isEqualTo(Duration.ofSeconds(60));
        assertThat(full.rate()).isEqualTo(500);
        assertThat(full.command()).isEqualTo("benchmarks/run.sh http-cluster");
    }

    @Test
    void acceptsEveryScenario() {
        for (String scenario : SuiteMain.SCENARIOS) {
            assertThat(SuiteOptions.parse(scenario, "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
                "out").scenario()).isEqualTo(scenario);
        }
    }

    @Test
    void rejectsMissingAndUnknownOptions() {
        assertThatThrownBy(() -> SuiteOptions.parse("http-cluster", "--quick"))
            .hasMessage("Missing required options: '--agent-jar=JAR', '--coordinator-jar=JAR', '--out=DIR'");
        assertThatThrownBy(() -> SuiteOptions.parse("--quick", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar",
            "--out", "out")).hasMessage("Missing required parameter: '<scenario>'");
        assertThatThrownBy(() -> SuiteOptions.parse("http-cluster", "--nope", "x"))
            .hasMessageContaining("Unknown options: '--nope', 'x'");
        assertThatThrownBy(() -> SuiteOptions.parse("single", "--quick", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out"))
            .hasMessage("unknown scenario single; one of [http-cluster, single-node, memory-pressure,"
                + " raft-kv, raft-kv-heavy, raft-counter, raft-memory-pressure, load-sweep, collection-rate,"
                + " grpc-cluster]");
        assertThatThrownBy(() -> SuiteOptions.parse("raft-kv", "--rate", "0", "--agent-jar", "a.jar",
            "--coordinator-jar", "c.jar", "--out", "out"))
            .hasMessage("Invalid value for option '--rate': '0.0' is not a positive rate");
    }

    @Test
    void theScenarioMayAlsoFollowTheOptions() {
        assertThat(SuiteOptions.parse("--quick", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out", "out",
            "raft-kv").scenario()).isEqualTo("raft-kv");
    }

    @Test
    void helpAndUsageErrorsAreTheSharedOnes() {
        ToolRun.of(new SuiteOptions.Flags("--help"), "--help").isHelpOf("SuiteMain", "<scenario>", "--quick",
            "--agent-jar=JAR", "--coordinator-jar=JAR", "--out=DIR", "--jvm-dir=DIR", "(default /usr/lib/jvm)",
            "--arms=a,b,...", "--command=TEXT");
        ToolRun.of(new SuiteOptions.Flags(), "single-node", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar",
            "--out", "out", "--arms", "g1").isUsageError("SuiteMain",
            "--arms applies to http-cluster, memory-pressure, raft-kv, raft-kv-heavy, raft-counter, load-sweep only");
    }

    @Test
    void theBackendsHeapIsOneAsXmxTakesItForTheHttpScenarios() {
        assertThat(SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out").heap()).isEqualTo("1g");
        assertThat(SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out", "--heap", "1536m").heap()).isEqualTo("1536m");
        assertThat(SuiteOptions.heapFlags("1536m")).containsExactly("-Xms1536m", "-Xmx1536m");
        assertThatThrownBy(() -> SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--heap", "2GiB"))
            .hasMessage("Invalid value for option '--heap': '2GiB' is not a size with a unit, m or g, as -Xmx takes"
                + " it, e.g. 2g");
        assertThatThrownBy(() -> SuiteOptions.parse("raft-kv", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--heap", "2g"))
            .hasMessage("--heap applies to http-cluster, load-sweep only");
    }

    @Test
    void theWorkloadIsNamedForTheHttpScenarios() {
        assertThat(SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out").workload()).isEqualTo(Workload.CACHE_CHURN);
        SuiteOptions o = SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar",
            "--out", "out", "--workload", "request-scoped");
        assertThat(o.workload()).isEqualTo(Workload.REQUEST_SCOPED);
        assertThat(o.workload().args()).containsSubsequence("--garbage-kb", "88", "--churn-kb", "8");
        assertThat(o.workload().kibPerRequest()).isEqualTo(Workload.CACHE_CHURN.kibPerRequest()).isEqualTo(96);
        assertThatThrownBy(() -> SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--workload", "cache"))
            .hasMessage("Invalid value for option '--workload': 'cache' is not one of cache-churn, request-scoped");
        assertThatThrownBy(() -> SuiteOptions.parse("raft-kv", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--workload", "request-scoped"))
            .hasMessage("--workload applies to http-cluster, load-sweep only");
    }

    @Test
    void theBackendsGcThreadsAreOneUnlessToldForTheHttpScenarios() {
        assertThat(SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out").gcThreads()).isEqualTo(1);
        assertThat(SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out", "--gc-threads", "2").gcThreads()).isEqualTo(2);
        assertThatThrownBy(() -> SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--gc-threads", "0"))
            .hasMessage("Invalid value for option '--gc-threads': '0' is not an integer in 1..64");
        assertThatThrownBy(() -> SuiteOptions.parse("raft-kv", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--gc-threads", "2"))
            .hasMessage("--gc-threads applies to http-cluster, load-sweep only");
    }

    @Test
    void theBackendsRunWithoutACpuLimitUnlessToldForTheSweep() {
        assertThat(SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out").backendCpus()).isZero();
        assertThat(SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out", "--backend-cpus", "0.5").backendCpus()).isEqualTo(0.5);
        assertThatThrownBy(() -> SuiteOptions.parse("load-sweep", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--backend-cpus", "-1"))
            .hasMessage("Invalid value for option '--backend-cpus': '-1.0' is not 0 (no limit) or a number of cores"
                + " up to 64, e.g. 0.5");
        assertThatThrownBy(() -> SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--backend-cpus", "0.5"))
            .hasMessage("--backend-cpus applies to load-sweep only");
    }

    @Test
    void armsAreAListForTheScenariosWithArmsToChoose() {
        assertThat(SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out").arms()).isEmpty();
        assertThat(SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out", "--arms", "g1,blade-g1").arms()).containsExactly("g1", "blade-g1");
        assertThat(SuiteOptions.parse("raft-kv-heavy", "--agent-jar", "a.jar", "--coordinator-jar", "c.jar", "--out",
            "out", "--arms", "g1,epsilon").arms()).containsExactly("g1", "epsilon");
        assertThatThrownBy(() -> SuiteOptions.parse("single-node", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--arms", "g1"))
            .hasMessageContaining("--arms applies to http-cluster, memory-pressure, raft-kv, raft-kv-heavy,"
                + " raft-counter, load-sweep only");
        assertThatThrownBy(() -> SuiteOptions.parse("http-cluster", "--agent-jar", "a.jar", "--coordinator-jar",
            "c.jar", "--out", "out", "--arms", "g1,,epsilon")).hasMessageContaining("separated by commas");
    }
}
