package io.bladegc.agent;

import static io.bladegc.testkit.ChildJvm.currentJava;
import static io.bladegc.testkit.ChildJvm.javaagent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.bladegc.agent.testapp.TinyApp;
import io.bladegc.testkit.ChildJvm;
import io.bladegc.testkit.ChildJvm.Run;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Starts real child JVMs with the shaded agent jar and checks what the application and its operator see. */
class AgentStartupIT {
    private static final String VALID_KEYS = "(valid: enabled, strict, drainTimeout, margin, sampleInterval, "
        + "coordinator, nodeId, token, coordinatorTimeout, instrument, explicitGc)";

    /** Blade ran: the app ran, the node is published, its summary was logged once, nothing went wrong. */
    private static void assertStarted(Run r) {
        assertThat(r.exitCode()).as("exit code\n%s", r).isZero();
        assertThat(r.stdoutLines()).as("%s", r).contains("app ran");
        String summary = r.channelSummary();
        assertThat(summary).as("node summary through the MBean channel\n%s", r)
            .isNotEqualTo("none").doesNotStartWith("unreadable").doesNotStartWith("(no blade node");
        // eden and the lead time are read live: G1 resizes eden between the start-up line and the MBean read
        int live = summary.indexOf(", eden=");
        String fixed = live > 0 ? summary.substring(0, live) : summary;
        assertThat(r.stderrLines().stream().filter(l -> l.contains(fixed)))
            .as("the start-up summary (%s), logged once to stderr\n%s", fixed, r).hasSize(1);
    }

    /** Blade stayed off with exactly one line; the app ran normally. */
    private static String assertOneLineAndAppRan(Run r) {
        assertThat(r.exitCode()).as("exit code\n%s", r).isZero();
        assertThat(r.stdoutLines()).as("%s", r).contains("app ran", "blade node: none");
        assertThat(r.bladeLines()).as("[blade] lines\n%s", r).hasSize(1);
        String line = r.bladeLines().get(0);
        assertThat(line).endsWith("; Blade is disabled, the application runs on");
        assertThat(r.stderr()).as("no stack trace\n%s", r).doesNotContain("\tat ", "Exception in thread");
        return line;
    }

    @Test
    void validOptionsStartBlade() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, javaagent("drainTimeout=250ms, margin=10ms"));
        assertStarted(r);
        assertThat(r.bladeLines()).as("%s", r).isEmpty();
        assertThat(r.channelSummary()).contains("margin 10 ms");
    }

    @Test
    void noArgumentsStartBladeWithDefaults() throws Exception {
        assertStarted(ChildJvm.run(currentJava(), Map.of(), TinyApp.class, javaagent(null)));
    }

    @Test
    void unknownOptionIsOneLineNamingItAndListingTheValidKeys() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, javaagent("drainTimout=250ms"));
        assertThat(assertOneLineAndAppRan(r)).contains("'drainTimout'", VALID_KEYS);
    }

    @Test
    void malformedValueIsOneLineNamingTheKeyAndTheExpectedForm() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, javaagent("margin=abc"));
        assertThat(assertOneLineAndAppRan(r)).contains("'margin=abc'", "expected a duration such as 20ms or 1s");
    }

    @Test
    void malformedSyntaxListsTheValidKeys() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, javaagent("foo"));
        assertThat(assertOneLineAndAppRan(r)).contains("'foo'", "expected key=value", VALID_KEYS);
    }

    @Test
    void unknownSystemPropertySaysWhereItCameFrom() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, "-Dblade.drainTimeot=1s", javaagent(null));
        assertThat(assertOneLineAndAppRan(r)).contains("'drainTimeot'", "system property blade.drainTimeot",
            VALID_KEYS);
    }

    @Test
    void unknownEnvironmentVariableSaysWhereItCameFrom() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of("BLADE_DRAIN_TIMEOT", "1s"), TinyApp.class, javaagent(null));
        assertThat(assertOneLineAndAppRan(r)).contains("BLADE_DRAIN_TIMEOT", "BLADE_DRAIN_TIMEOUT");
    }

    @Test
    void propertiesAndEnvironmentConfigureTheAgent() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of("BLADE_MARGIN", "7ms", "BLADE_SAMPLE_INTERVAL", "3ms"),
            TinyApp.class, "-Dblade.margin=9ms", javaagent(null));
        assertStarted(r);
        assertThat(r.channelSummary()).contains("margin 9 ms", "3 ms");
    }

    @Test
    void enabledFalseLeavesBladeOff() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, javaagent("enabled=false"));
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.stdoutLines()).as("%s", r).contains("app ran", "blade node: none");
        assertThat(r.bladeLines()).as("%s", r).isEmpty();
        assertThat(r.stderr()).as("%s", r).contains("enabled=false");
    }

    @Test
    void strictWithABadOptionStopsTheJvmWithOneLineAndNoStackTrace() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class,
            javaagent("strict=true,bogus=1,drainTimout=250ms"));
        assertThat(r.exitCode()).as("exit code\n%s", r).isEqualTo(BladeAgent.STRICT_EXIT_STATUS);
        assertThat(r.stdout()).as("%s", r).doesNotContain("app ran");
        assertThat(r.stderrLines()).as("all of stderr\n%s", r).singleElement().asString()
            .isEqualTo("[blade] strict=true and the options are invalid: unknown option 'bogus' " + VALID_KEYS
                + " (and 1 more); the JVM exits");
    }

    @Test
    void thousandsOfBadOptionsPrintAHandfulOfShortLinesAndTheApplicationRuns() throws Exception {
        StringBuilder args = new StringBuilder("margin=" + "7".repeat(50_000));
        for (int i = 0; i < 2_000; i++) {
            args.append(",k").append(i).append("=1");
        }
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, javaagent(args.toString()));
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.stdoutLines()).as("%s", r).contains("app ran", "blade node: none");
        assertThat(r.stderrLines()).as("%s", r).hasSize(6)
            .allSatisfy(l -> assertThat(l).startsWith("[blade] ").hasSizeLessThan(400));
        assertThat(r.stderrLines().get(5)).isEqualTo("[blade] ... and 1996 more" + BladeAgent.RUNS_ON);
    }

    @Test
    void agentGivenTwiceStartsOnceAndSaysItIsAlreadyAttached() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class,
            javaagent("margin=10ms"), javaagent("margin=30ms"));
        assertStarted(r);
        assertThat(r.bladeLines()).as("%s", r).hasSize(1).first().asString().contains("already attached");
        assertThat(r.channelSummary()).as("the first agent's options win").contains("margin 10 ms");
    }

    @Test
    void disableExplicitGcIsNamedAtStartup() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, "-XX:+DisableExplicitGC", javaagent(null));
        assertStarted(r);
        assertThat(r.stderr()).as("a start-up line naming the flag\n%s", r).contains("DisableExplicitGC");
    }

    @Test
    void withoutAFilterTheAgentObservesAndForcesNothing() throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class,
            "-XX:+UseSerialGC", "-Xmn16m", "-Dtinyapp.allocate=true",
            javaagent(null));
        assertStarted(r);
        String stats = r.stdoutLines().stream().filter(l -> l.startsWith("blade stats: ")).findFirst().orElseThrow();
        assertThat(stats).as("%s", r).contains("Mode=single-node, armed when a gate attaches", "Forced=0")
            .doesNotContain("Collections=0,");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-XX:+UseSerialGC", "-XX:+UseParallelGC", "-XX:+UseG1GC", "-XX:+UseZGC",
        "-XX:+UseShenandoahGC"})
    void startsUnderEveryCollector(String collector) throws Exception {
        Run r = ChildJvm.run(currentJava(), Map.of(), TinyApp.class, collector, javaagent(null));
        assumeTrue(r.exitCode() == 0 || !r.stderr().contains("Unrecognized VM option")
            && !r.stderr().contains("not supported") && !r.stderr().contains("Could not create the Java Virtual"),
            () -> collector + " is not available on this JDK");
        assertStarted(r);
    }

    @Test
    void startsOnANewerJdk() throws Exception {
        Optional<Path> java = ChildJvm.newerJava();
        assumeTrue(java.isPresent(), "no JDK 21+ under /usr/lib/jvm");
        assumeTrue(!java.get().toRealPath().equals(currentJava().toRealPath()), "the newest JDK runs this test");
        Run r = ChildJvm.run(java.get(), Map.of(), TinyApp.class, javaagent("drainTimeout=250ms"));
        assertStarted(r);
        assertThat(r.bladeLines()).as("%s", r).isEmpty();

        Run bad = ChildJvm.run(java.get(), Map.of(), TinyApp.class, javaagent("drainTimout=250ms"));
        assertThat(assertOneLineAndAppRan(bad)).contains("'drainTimout'", VALID_KEYS);
    }
}
