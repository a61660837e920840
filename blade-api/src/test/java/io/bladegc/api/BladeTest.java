package io.bladegc.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BladeTest {

    @AfterEach
    void stop() {
        Blade.stopNode();
    }

    @Test
    void oneNodePerJvmWhoeverAsks() {
        assertThat(Blade.node()).isEmpty();
        BladeNode a = Blade.startNode(BladeOptions.defaults());
        BladeNode b = Blade.startNode(BladeOptions.builder().margin(java.time.Duration.ofSeconds(1)).build());
        assertThat(b).isSameAs(a);
        assertThat(Blade.node()).containsSame(a);
        assertThat(a.summary()).contains("collector=").contains("mode=").contains("lead time=");
        Blade.stopNode();
        assertThat(Blade.node()).isEmpty();
    }

    @Test
    void anEntryStartsTheNodeWhenThereIsNoneAndJoinsItAfterwards() {
        EntryNode first = Blade.joinOrStart(BladeOptions.defaults()).orElseThrow();
        assertThat(first.joined()).isFalse();
        assertThat(Blade.node()).containsSame(first.node());

        EntryNode second = Blade.joinOrStart(BladeOptions.builder().margin(java.time.Duration.ofSeconds(1)).build())
            .orElseThrow();
        assertThat(second.joined()).isTrue();
        assertThat(second.node()).isSameAs(first.node());
    }

    @Test
    void anEntryStartsNoNodeWhenTheAgentLeftBladeOff() {
        System.setProperty(Blade.AGENT_OFF_PROPERTY, "enabled=false");
        try {
            assertThat(Blade.joinOrStart(BladeOptions.defaults())).isEmpty();
            assertThat(Blade.node()).isEmpty();
        } finally {
            System.clearProperty(Blade.AGENT_OFF_PROPERTY);
        }
    }

    @Test
    void anAttachedEntryStartsTheNodeOrJoinsItAndSaysWhichInOneLine() {
        List<String> lines = new ArrayList<>();
        BladeNode started = Blade.attachEntry(BladeOptions.defaults(), recording(lines), "Test entry", "request")
            .orElseThrow();
        assertThat(Blade.node()).containsSame(started);
        assertThat(Blade.attachEntry(BladeOptions.defaults(), recording(lines), "Test entry", "request"))
            .containsSame(started);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).startsWith("INFO Test entry: started a Blade node (GCI mode); Blade: collector=");
        assertThat(lines.get(1)).startsWith("INFO Test entry: joined the running Blade node; Blade: collector=");
    }

    @Test
    void anAttachedEntryPassesThroughWhenDisabledOrWhenTheAgentLeftBladeOff() {
        List<String> lines = new ArrayList<>();
        assertThat(Blade.attachEntry(BladeOptions.builder().enabled(false).build(), recording(lines), "Test entry",
            "call")).isEmpty();
        System.setProperty(Blade.AGENT_OFF_PROPERTY, "enabled=false");
        try {
            assertThat(Blade.attachEntry(BladeOptions.defaults(), recording(lines), "Test entry", "call")).isEmpty();
        } finally {
            System.clearProperty(Blade.AGENT_OFF_PROPERTY);
        }
        assertThat(Blade.node()).isEmpty();
        assertThat(lines).containsExactly(
            "INFO Test entry: disabled by enabled=false; passing every call through",
            "WARNING Test entry: the Blade agent in this JVM is off (enabled=false); passing every call through");
    }

    /** A logger that keeps each line as its level, a space and the message. */
    private static System.Logger recording(List<String> lines) {
        return new System.Logger() {
            @Override
            public String getName() {
                return "recording";
            }

            @Override
            public boolean isLoggable(Level level) {
                return true;
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
                lines.add(level + " " + msg);
            }

            @Override
            public void log(Level level, ResourceBundle bundle, String format, Object... params) {
                lines.add(level + " " + format);
            }
        };
    }

    @Test
    void anEntryJoinsTheAgentsNodeEvenWhenTheOffPropertyIsSet() {
        BladeNode running = Blade.startNode(BladeOptions.defaults());
        System.setProperty(Blade.AGENT_OFF_PROPERTY, "enabled=false");
        try {
            assertThat(Blade.joinOrStart(BladeOptions.defaults())).hasValueSatisfying(e -> {
                assertThat(e.node()).isSameAs(running);
                assertThat(e.joined()).isTrue();
            });
        } finally {
            System.clearProperty(Blade.AGENT_OFF_PROPERTY);
        }
    }

    @Test
    void aCopyInAnotherClassLoaderReachesTheNodeThroughJdkTypesOnly() {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        Map<String, Object> channel = new HashMap<>(NodeChannel.lookup());
        channel.remove("node"); // what a foreign copy sees: it cannot use the object itself
        ChannelNode foreign = new ChannelNode(channel);

        assertThat(foreign.gate().tryEnter()).isTrue();
        assertThat(node.gate().inFlight()).isEqualTo(1);
        node.gate().close();
        assertThat(foreign.gate().tryEnter()).isFalse();
        foreign.gate().exit();
        assertThat(node.gate().inFlight()).isZero();
        node.gate().open();

        assertThat(foreign.coordinated()).as("single-node: no handler").isFalse();
        AtomicReference<GcRequest> seen = new AtomicReference<>();
        foreign.register(r -> {
            seen.set(r);
            return GcDecision.DEFER;
        });
        assertThat(node.coordinated()).as("a handler plans the node's collections").isTrue();
        assertThat(foreign.coordinated()).isTrue();
        assertThat(foreign.retryAfter()).isEqualTo(node.retryAfter());
        assertThat(foreign.summary()).isEqualTo(node.summary());
        assertThatThrownBy(() -> foreign.startGc(42)).isInstanceOf(IllegalArgumentException.class);
        foreign.register(null);
        assertThat(foreign.coordinated()).isFalse();
    }

    @Test
    void aNodeOfAnOlderBladeWithoutTheCoordinatedEntryReadsAsSingleNode() {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        node.register(r -> GcDecision.DEFER);
        Map<String, Object> channel = new HashMap<>(NodeChannel.lookup());
        channel.remove("node");
        channel.remove("coordinated");
        assertThat(new ChannelNode(channel).coordinated()).isFalse();
        node.register(null);
    }

    @Test
    void eachPauseOfTheJvmReachesAListenerThroughTheChannelUntilItIsRemoved() throws InterruptedException {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        Map<String, Object> channel = new HashMap<>(NodeChannel.lookup());
        channel.remove("node");
        List<Generation> generations = new CopyOnWriteArrayList<>();
        AtomicLong toldNanos = new AtomicLong();
        Runnable remove = new ChannelNode(channel).addPauseListener((g, nanos) -> {
            toldNanos.addAndGet(nanos);
            generations.add(g);
        });
        long pauseBefore = node.pauseNanos();
        System.gc(); // the JVM's own collection, not one Blade forced: a full one
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!generations.contains(Generation.OLD) && System.nanoTime() < deadline) {
            Thread.sleep(10); // notifications come on the JVM's notification thread
        }
        assertThat(generations).as("the pause of System.gc()").contains(Generation.OLD);
        remove.run();
        assertThat(toldNanos.get()).as("every pause the node counted, no other")
            .isEqualTo(node.pauseNanos() - pauseBefore);
        int told = generations.size();
        long seen = node.pauseNanos();
        System.gc();
        while (node.pauseNanos() == seen && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(node.pauseNanos()).as("the second System.gc() paused").isGreaterThan(seen);
        assertThat(generations).as("nothing told after the listener was removed").hasSize(told);

        channel.remove("addPauseListener"); // a node of an older Blade: no pauses told, no error
        assertThat(new ChannelNode(channel).addPauseListener((g, nanos) -> generations.add(g))).isNotNull();
    }

    @Test
    void aHandlerRegisteredThroughTheChannelIsAskedItsScheduleAndPreparationLeads() {
        BladeNode node = Blade.startNode(BladeOptions.defaults());
        Map<String, Object> channel = new HashMap<>(NodeChannel.lookup());
        channel.remove("node");
        ChannelNode foreign = new ChannelNode(channel);
        long before = leadMillis(node.summary());
        foreign.register(new GcHandler() {
            @Override
            public GcDecision onGcRequest(GcRequest request) {
                return GcDecision.DEFER;
            }

            @Override
            public long scheduleLeadNanos() {
                return 500_000_000;
            }

            @Override
            public long preparationLeadNanos() {
                return 70_000_000;
            }
        });
        assertThat(leadMillis(node.summary()) - before).as("the schedule's lead and the preparation's").isEqualTo(570);
        foreign.register(null);
        assertThat(leadMillis(node.summary())).isEqualTo(before);
    }

    private static long leadMillis(String summary) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("lead time=(\\d+) ms").matcher(summary);
        assertThat(m.find()).as(summary).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void aMismatchedChannelVersionIsAClearError() {
        Blade.startNode(BladeOptions.defaults());
        Map<String, Object> channel = new HashMap<>(NodeChannel.lookup());
        channel.put("version", 99);
        assertThatThrownBy(() -> new ChannelNode(channel)).hasMessageContaining("version 99")
            .hasMessageContaining("one Blade version");
    }
}
