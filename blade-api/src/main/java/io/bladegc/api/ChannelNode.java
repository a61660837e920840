package io.bladegc.api;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;

/** A {@link BladeNode} run by another copy of Blade in this JVM, reached through {@link NodeChannel}. */
final class ChannelNode implements BladeNode {
    private final Gate gate;
    private final LongSupplier retryAfter;
    private final LongSupplier drainTimeout;
    private final LongSupplier pauseNanos;
    private final LongSupplier collections;
    private final LongSupplier leadTimeMillis;
    private final LongSupplier dueInMillis;
    private final Runnable attach;
    private final Runnable detach;
    private final Consumer<Function<long[], Boolean>> register;
    private final BiConsumer<Function<long[], Boolean>, LongSupplier> registerWithLead;
    private final BiConsumer<Function<long[], Boolean>, LongSupplier[]> registerWithLeads;
    private final LongFunction<String> startGc;
    private final LongFunction<long[]> drainAndCollect;
    private final Function<long[], long[]> drainAndCollectAs;
    private final Supplier<String> summary;
    private final BooleanSupplier requestCollection;
    private final BooleanSupplier coordinated;
    private final Function<ObjLongConsumer<Integer>, Runnable> addPauseListener;

    @SuppressWarnings("unchecked")
    ChannelNode(Map<String, Object> ch) {
        Object version = ch.get("version");
        if (!Integer.valueOf(NodeChannel.VERSION).equals(version)) {
            throw new IllegalStateException("the Blade node in this JVM speaks channel version " + version
                + ", this copy of blade-api speaks " + NodeChannel.VERSION + ": use one Blade version in a JVM");
        }
        this.gate = new Gate((AtomicLong) ch.get("gateState"), (Runnable) ch.get("gateDrained"),
            (LongAdder) ch.getOrDefault("gateShed", new LongAdder()));
        this.retryAfter = (LongSupplier) ch.get("retryAfter");
        this.drainTimeout = (LongSupplier) ch.getOrDefault("drainTimeout", (LongSupplier) () -> 0);
        this.pauseNanos = (LongSupplier) ch.get("pauseNanos");
        this.collections = (LongSupplier) ch.getOrDefault("collections", (LongSupplier) () -> -1);
        this.leadTimeMillis = (LongSupplier) ch.getOrDefault("leadTimeMillis", (LongSupplier) () -> -1);
        this.dueInMillis = (LongSupplier) ch.getOrDefault("dueInMillis", (LongSupplier) () -> -1);
        this.attach = (Runnable) ch.get("attachGate");
        this.detach = (Runnable) ch.get("detachGate");
        this.register = (Consumer<Function<long[], Boolean>>) ch.get("register");
        this.registerWithLead = (BiConsumer<Function<long[], Boolean>, LongSupplier>) ch.get("registerWithLead");
        this.registerWithLeads = (BiConsumer<Function<long[], Boolean>, LongSupplier[]>) ch.get("registerWithLeads");
        this.startGc = (LongFunction<String>) ch.get("startGc");
        this.drainAndCollect = (LongFunction<long[]>) ch.get("drainAndCollect");
        this.drainAndCollectAs = (Function<long[], long[]>) ch.get("drainAndCollectAs");
        this.summary = (Supplier<String>) ch.get("summary");
        this.requestCollection = (BooleanSupplier) ch.get("requestCollection");
        this.coordinated = (BooleanSupplier) ch.getOrDefault("coordinated", (BooleanSupplier) () -> false);
        this.addPauseListener = (Function<ObjLongConsumer<Integer>, Runnable>) ch.getOrDefault("addPauseListener",
            (Function<ObjLongConsumer<Integer>, Runnable>) l -> () -> { });
    }

    @Override
    public Gate gate() {
        return gate;
    }

    @Override
    public void register(GcHandler handler) {
        Function<long[], Boolean> f = handler == null ? null : r -> handler.onGcRequest(new GcRequest(r[0], r[1],
            r[2], Duration.ofNanos(r[3]), Generation.values()[(int) r[4]],
            Duration.ofNanos(r.length > 5 ? r[5] : 0))) == GcDecision.COLLECT_NOW; // a node from a Blade before it
        if (registerWithLeads != null) {
            registerWithLeads.accept(f, handler == null ? null
                : new LongSupplier[] {handler::scheduleLeadNanos, handler::preparationLeadNanos,
                    () -> handler.leavesUnplannableToJvm() ? 1 : 0});
        } else if (registerWithLead != null) { // a node from a Blade before the preparation's lead: one lead, capped
            registerWithLead.accept(f, handler == null ? null
                : () -> handler.scheduleLeadNanos() + handler.preparationLeadNanos());
        } else { // a node from a Blade without it: the handler's schedule lead is not asked
            register.accept(f);
        }
    }

    @Override
    public GcOutcome startGc(long id) {
        return GcOutcome.valueOf(startGc.apply(id));
    }

    @Override
    public DrainedCollection drainAndCollect(long id) {
        return drained(drainAndCollect.apply(id));
    }

    @Override
    public DrainedCollection drainAndCollect(long id, Generation generation) {
        if (drainAndCollectAs == null) { // a node from a Blade without it collects the request's own generation
            return drainAndCollect(id);
        }
        return drained(drainAndCollectAs.apply(new long[] {id, generation.ordinal()}));
    }

    @Override
    public DrainedCollection drainAndCollect(long id, Generation generation, long collectByNanos) {
        if (drainAndCollectAs == null) {
            return drainAndCollect(id);
        }
        // a node from a Blade before the deadline reads two elements and collects regardless
        return drained(drainAndCollectAs.apply(new long[] {id, generation.ordinal(), collectByNanos}));
    }

    private static DrainedCollection drained(long[] d) {
        return new DrainedCollection(GcOutcome.values()[(int) d[0]], Duration.ofNanos(d[1]), Duration.ofNanos(d[2]),
            d[3] != 0);
    }

    @Override
    public Duration retryAfter() {
        return Duration.ofNanos(retryAfter.getAsLong());
    }

    @Override
    public Duration drainTimeout() {
        return Duration.ofNanos(drainTimeout.getAsLong());
    }

    @Override
    public long pauseNanos() {
        return pauseNanos.getAsLong();
    }

    @Override
    public long collections() {
        return collections.getAsLong();
    }

    @Override
    public long leadTimeMillis() {
        return leadTimeMillis.getAsLong();
    }

    @Override
    public long dueInMillis() {
        return dueInMillis.getAsLong();
    }

    @Override
    public void attachGate() {
        attach.run();
    }

    @Override
    public void detachGate() {
        detach.run();
    }

    @Override
    public boolean requestCollection() {
        return requestCollection.getAsBoolean();
    }

    @Override
    public boolean coordinated() {
        return coordinated.getAsBoolean();
    }

    @Override
    public Runnable addPauseListener(ObjLongConsumer<Generation> listener) {
        return addPauseListener.apply((g, nanos) -> listener.accept(Generation.values()[g], nanos));
    }

    @Override
    public String summary() {
        return summary.get();
    }
}
