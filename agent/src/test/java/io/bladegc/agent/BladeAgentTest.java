package io.bladegc.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.agent.coordination.CoordinatedMode;
import io.bladegc.agent.coordination.CoordinatedModes;
import io.bladegc.agent.coordination.FakeCoordinator;
import io.bladegc.agent.coordination.LogLines;
import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.grant.GrantHolder;
import io.bladegc.api.testing.FakeNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The agent's start-up logic, in process, with a fake node starter: no real Blade node is started here. */
class BladeAgentTest {
    private final Properties props = new Properties();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    private final LogLines log = new LogLines();
    private final List<BladeOptions> started = new ArrayList<>();
    private final BladeNode fakeNode = (BladeNode) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {BladeNode.class}, (proxy, method, args) -> switch (method.getName()) {
            case "summary" -> "Blade: fake summary";
            case "toString" -> "fakeNode";
            case "hashCode" -> 0;
            case "equals" -> proxy == args[0];
            default -> throw new UnsupportedOperationException(method.getName());
        });
    private final Function<BladeOptions, BladeNode> starter = o -> {
        started.add(o);
        return fakeNode;
    };

    private BladeNode start(String args, Map<String, String> env) {
        return BladeAgent.start(args, props, env, err, log, starter);
    }

    private List<String> errLines() {
        String s = errBytes.toString(StandardCharsets.UTF_8);
        return s.isEmpty() ? List.of() : List.of(s.split("\\R"));
    }

    @Test
    void validOptionsStartTheNodeAndLogTheSummaryOnce() {
        BladeNode node = start("drainTimeout=250ms", Map.of("BLADE_MARGIN", "5ms"));
        assertThat(node).isSameAs(fakeNode);
        assertThat(started).singleElement().satisfies(o -> {
            assertThat(o.drainTimeout()).isEqualTo(Duration.ofMillis(250));
            assertThat(o.margin()).isEqualTo(Duration.ofMillis(5));
        });
        assertThat(log.lines).containsExactly("INFO Blade: fake summary");
        assertThat(errLines()).isEmpty();
        assertThat(props.getProperty(BladeAgent.ATTACHED_PROPERTY)).isEqualTo("true");
        assertThat(props.getProperty(Blade.AGENT_OFF_PROPERTY)).isNull();
    }

    @Test
    void secondAttachPrintsOneLineAndDoesNothing() {
        start(null, Map.of());
        BladeNode second = start("margin=1ms", Map.of());
        assertThat(second).isNull();
        assertThat(started).hasSize(1);
        assertThat(errLines()).singleElement().asString().startsWith("[blade] ").contains("already attached");
    }

    @Test
    void badOptionsPrintOneLinePerErrorAndLeaveBladeOff() {
        BladeNode node = start("drainTimout=1s,margin=abc", Map.of());
        assertThat(node).isNull();
        assertThat(started).isEmpty();
        assertThat(log.lines).isEmpty();
        assertThat(errLines()).containsExactly(
            "[blade] unknown option 'drainTimout' (valid: enabled, strict, drainTimeout, margin, sampleInterval, "
                + "coordinator, nodeId, token, coordinatorTimeout, instrument, explicitGc); Blade is disabled, the "
                + "application runs on",
            "[blade] malformed option 'margin=abc': expected a duration such as 20ms or 1s"
                + "; Blade is disabled, the application runs on");
        assertThat(props.getProperty(Blade.AGENT_OFF_PROPERTY)).as("what a Blade filter in this JVM reads")
            .startsWith("its options were refused: unknown option 'drainTimout'").endsWith("(and 1 more)");
    }

    @Test
    void strictMakesBadOptionsFatalWithOneLineForThePremainToPrint() {
        assertThatThrownBy(() -> start("strict=true,nope=1,margin=x", Map.of()))
            .isInstanceOf(BladeAgent.StrictFailure.class)
            .hasMessage("[blade] strict=true and the options are invalid: unknown option 'nope' (valid: enabled, "
                + "strict, drainTimeout, margin, sampleInterval, coordinator, nodeId, token, coordinatorTimeout, "
                + "instrument, explicitGc) (and 1 more)")
            .satisfies(e -> assertThat(e.getStackTrace()).isEmpty());
        assertThat(started).isEmpty();
        assertThat(errLines()).isEmpty();
    }

    @Test
    void strictFromEnvironmentCountsToo() {
        assertThatThrownBy(() -> start("margin=x", Map.of("BLADE_STRICT", "true")))
            .isInstanceOf(BladeAgent.StrictFailure.class);
    }

    @Test
    void thousandsOfBadOptionsPrintAHandfulOfShortLines() {
        StringBuilder args = new StringBuilder("margin=" + "7".repeat(100_000) + ",nodeId=a\nb");
        for (int i = 0; i < 5_000; i++) {
            args.append(",k").append(i).append("=1");
        }
        assertThat(start(args.toString(), Map.of())).isNull();
        assertThat(errLines()).hasSize(OptionMessages.MAX_LINES + 1)
            .allSatisfy(l -> assertThat(l).startsWith("[blade] ").hasSizeLessThan(400))
            .last().isEqualTo("[blade] ... and 4997 more" + BladeAgent.RUNS_ON);
        assertThat(errLines().get(0)).contains("'margin=" + "7".repeat(80) + "...(100000 chars)'");
        assertThat(errLines().get(1)).contains("'nodeId=a\\nb'");
    }

    @Test
    void disabledLogsAndDoesNotStart() {
        assertThat(start("enabled=false", Map.of())).isNull();
        assertThat(started).isEmpty();
        assertThat(log.lines).singleElement().asString().startsWith("INFO").contains("enabled=false");
        assertThat(errLines()).isEmpty();
        assertThat(props.getProperty(Blade.AGENT_OFF_PROPERTY)).isEqualTo("enabled=false");
    }

    @Test
    void aFailingStartIsOneLineAndNeverFatalEvenWhenStrict() {
        Function<BladeOptions, BladeNode> broken = o -> {
            throw new NoClassDefFoundError("io/bladegc/api/internal/Missing\nsecond line");
        };
        BladeNode node = BladeAgent.start("strict=true", props, Map.of(), err, log, broken);
        assertThat(node).isNull();
        assertThat(errLines()).singleElement().asString()
            .startsWith("[blade] could not start: java.lang.NoClassDefFoundError: io/bladegc/api/internal/Missing")
            .endsWith("; Blade is disabled, the application runs on");
    }

    @Test
    void aFailingSummaryIsCaughtToo() {
        BladeNode bad = (BladeNode) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {BladeNode.class}, (proxy, method, args) -> {
                throw new IllegalStateException("boom");
            });
        assertThat(BladeAgent.start("", props, Map.of(), err, log, o -> bad)).isNull();
        assertThat(errLines()).singleElement().asString().contains("could not start", "boom");
    }

    @Test
    void aCoordinatorStartsTheCoordinatedModeWithoutDelayAndTheStartLineNamesItButNotTheToken() throws Exception {
        FakeNode node = new FakeNode();
        List<CoordinatedMode> modes = new ArrayList<>();
        FakeCoordinator fake = FakeCoordinator.start();
        fake.on("join", c -> FakeCoordinator.Reply.blackHoled()); // the join never gets an answer
        int port = fake.uri().getPort();
        BladeNode started;
        try {
            started = BladeAgent.start("coordinator=http://127.0.0.1:" + port + ",nodeId=n1,"
                + "coordinatorTimeout=30s", props,
                Map.of("BLADE_TOKEN", "s3cr3t"), err, log, o -> node, (n, o, l) -> {
                    CoordinatedMode m = CoordinatedModes.startWithoutHook(n, o, l);
                    modes.add(m);
                    return m;
                }, (n, o) -> "");
            // had the start waited for the coordinator, the join would have timed out and marked it down by now
            assertThat(modes).singleElement().satisfies(m -> assertThat(CoordinatedModes.downReason(m))
                .as("no I/O before main: the join is still out").isEqualTo("not joined yet"));
            assertThat(started).isSameAs(node);
            assertThat(node.registered).singleElement().isInstanceOf(GrantHolder.class);
            assertThat(log.lines).as("the start-up line (the heartbeat thread may log beside it)")
                .contains("INFO Blade: fake node, coordinator=http://127.0.0.1:" + port
                    + ", node id=n1, coordinator timeout=30000 ms, token set");
            assertThat(log.lines).noneMatch(l -> l.contains("s3cr3t"));
            assertThat(errLines()).isEmpty();
        } finally {
            modes.forEach(CoordinatedMode::close);
            fake.close();
        }
        assertThat(node.registered).as("closing gives the node its default handler back").last().isNull();
    }

    @Test
    void aCoordinatedModeThatCannotStartLeavesTheNodeSingleNodeWithOneLine() {
        FakeNode node = new FakeNode();
        BladeNode started = BladeAgent.start("coordinator=http://127.0.0.1:7070", props, Map.of(), err, log,
            o -> node, (n, o, l) -> {
                throw new NoClassDefFoundError("java/net/http/HttpClient");
            }, (n, o) -> "");
        assertThat(started).isSameAs(node);
        assertThat(errLines()).singleElement().asString()
            .isEqualTo("[blade] coordinated mode could not start: java.lang.NoClassDefFoundError: "
                + "java/net/http/HttpClient; the node runs single-node");
        assertThat(log.lines).singleElement().asString()
            .endsWith("coordinator=http://127.0.0.1:7070 (could not start: single-node)");
    }

    @Test
    void aMalformedCoordinatorIsOneLineAndBladeStaysOff() {
        assertThat(start("coordinator=localhost:7070", Map.of())).isNull();
        assertThat(started).isEmpty();
        assertThat(errLines()).singleElement().asString()
            .startsWith("[blade] malformed option 'coordinator=localhost:7070': ")
            .contains("http://127.0.0.1:7070").endsWith("; Blade is disabled, the application runs on");
    }

    @Test
    void anInstrumentationThatCannotStartLeavesTheNodeRunningWithOneLine() {
        FakeNode node = new FakeNode();
        BladeNode started = BladeAgent.start("instrument=servlet,explicitGc=coordinate", props, Map.of(), err, log,
            o -> node, BladeAgent.COORDINATED, (n, o) -> {
                throw new java.io.IOException("no space left on device\nsecond line");
            });
        assertThat(started).isSameAs(node);
        assertThat(errLines()).singleElement().asString()
            .isEqualTo("[blade] cannot instrument (java.io.IOException: no space left on device second line); the "
                + "node runs without instrument=servlet, explicitGc=coordinate");
        assertThat(log.lines).singleElement().asString().isEqualTo("INFO Blade: fake node, instrumentation failed");
    }

    @Test
    void whatWasInstrumentedEndsTheStartLine() {
        FakeNode node = new FakeNode();
        List<BladeOptions> asked = new ArrayList<>();
        BladeAgent.start("explicitGc=ignore", props, Map.of(), err, log, o -> node, BladeAgent.COORDINATED,
            (n, o) -> {
                asked.add(o);
                return ", explicitGc=ignore";
            });
        assertThat(asked).singleElement().extracting(BladeOptions::explicitGc)
            .isEqualTo(BladeOptions.ExplicitGc.IGNORE);
        assertThat(log.lines).singleElement().asString().isEqualTo("INFO Blade: fake node, explicitGc=ignore");
        assertThat(errLines()).isEmpty();
    }
}
