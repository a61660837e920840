package io.bladegc.grpc;

import static io.bladegc.grpc.TestService.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.GcDecision;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How the interceptor comes by its node: the running one (the agent's), a new one, or none. */
class NodeDiscoveryTest {

    @AfterEach
    void stop() {
        System.clearProperty(Blade.AGENT_OFF_PROPERTY);
        Blade.stopNode();
    }

    @Test
    void joinsTheNodeThatRunsAlreadyAndLeavesItRunning() {
        BladeNode running = Blade.startNode(BladeOptions.defaults());
        running.register(request -> GcDecision.DEFER);
        try (BladeServerInterceptor blade = BladeServerInterceptor.start(BladeOptions.defaults())) {
            assertThat(blade.isPassThrough()).isFalse();
            running.gate().close();
            assertThat(blade.isGateOpen()).isFalse();
            running.gate().open();
        }
        assertThat(Blade.node()).as("the node outlives the interceptor").containsSame(running);
    }

    @Test
    void passesThroughWhenTheAgentLeftBladeOff() throws Exception {
        System.setProperty(Blade.AGENT_OFF_PROPERTY, "enabled=false");
        try (BladeServerInterceptor blade = BladeServerInterceptor.start(BladeOptions.defaults());
             InProcessServer server = new InProcessServer(new TestService(), blade)) {
            assertThat(blade.isPassThrough()).isTrue();
            assertThat(Blade.node()).isEmpty();
            assertThat(server.blocking().unaryRpc(request("hello")).getResponseMessage()).isEqualTo("hello");
        }
    }

    @Test
    void passesThroughWhenDisabled() {
        try (BladeServerInterceptor blade =
                 BladeServerInterceptor.start(BladeOptions.builder().enabled(false).build())) {
            assertThat(blade.isPassThrough()).isTrue();
            assertThat(blade.isGateOpen()).isTrue();
            assertThat(Blade.node()).isEmpty();
        }
    }
}
