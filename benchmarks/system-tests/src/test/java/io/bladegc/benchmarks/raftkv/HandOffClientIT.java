package io.bladegc.benchmarks.raftkv;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.benchmarks.DirectoryTree;
import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.ratis.RaftBladeClients;
import io.bladegc.testkit.ChildProcess;
import io.bladegc.testkit.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What an application gets from Blade's leadership hand-offs when nothing of it was written for Blade: a replicated
 * counter ({@link CounterStateMachine}, no Blade code) on three {@link CounterServer} JVMs, each changed only by the
 * two lines of docs/raft.md and run with the agent, small young generations ({@link #YOUNG}) and
 * {@code HandOff.ALWAYS}, so that every collection of a leader is a {@code transferLeadership}; and stock Ratis clients
 * configured as {@link RaftBladeClients}' javadoc says (request timeout and retry policy from it, writes through
 * {@link RaftBladeClients#send}, linearizable reads through {@code client.io().sendReadOnly}).
 *
 * <p>Once every peer is ready, {@link #CLIENTS} client threads, each with its own {@link RaftClient}, send
 * {@code INCREMENT <client> <seq>} (sequence numbers 1, 2, ... per client, padded with {@link #PADDING} bytes so the
 * peers allocate) on a fixed schedule, {@link #RATE} a second together (a late call is sent at once; the schedule
 * restarts when it is 2 s behind), and every {@value #READ_EVERY}th tick also a linearizable {@code GET}. The load
 * runs until the peers' logs hold {@value #MIN_HAND_OFFS} hand-offs (lines with {@code (handed }) counted from when
 * every peer said it is armed (which the load's allocation brings about), or for {@link #LIMIT}.
 *
 * <p>Proved, from the client's side and the state machine's own record:
 * <ul>
 *   <li>the hand-offs happened: at least {@value #MIN_HAND_OFFS} logged by the peers while the clients ran;</li>
 *   <li>zero failed calls: every write and read returned a successful reply (an exception, a reply that is not a
 *       success, or a call that did not return within {@link #DRAIN} of the end of the load counts, with its class);
 *       </li>
 *   <li>every increment applied exactly once: after the load a linearizable {@code GET} equals the number of
 *       acknowledged increments, and per client the state machine's {@code SEQS} shows {@code 1..n} (n: the
 *       increments that client sent), each applied once, no duplicate and no gap;</li>
 *   <li>reads are not stale: each {@code GET} is at least the number of increments acknowledged before it was sent.
 *       </li>
 * </ul>
 * Prints the number of hand-offs, calls, worst write and read latencies (each call's own duration, retries included)
 * and the duration of the load. The peers' logs and GC logs are in {@code target/raftkv/handoff-client/}.
 *
 * <p>With the defaults (8 clients asking 150 writes/s, 1 KiB padding, {@code -Xmn48m}) on a 2-core machine, a
 * leader collects about every 1.5 s, the group completes about 100 writes/s (the clients fall behind their schedule
 * during hand-offs) and the 20 hand-offs take about 30 s. A duplicate shows in the failure as {@code SEQS} with a
 * {@code <seq>x2}; the peers' Raft logs then hold that INCREMENT twice, under two call ids of the same client.
 *
 * <p>History: in 12 local runs before {@link RaftBladeClients#send} told a resent attempt apart, one applied eight
 * increments twice (a write that timed out during a slow transfer was refused with {@code LeaderSteppingDownException}
 * on its resend and sent again as a new call); then, throwing that refusal instead, one run of two had a failed call.
 * Since {@code send} plays such a write again as the same call, 5 of 5 runs passed (one with a core kept busy).
 */
@Tag("cluster")
class HandOffClientIT {
    /** Client threads, each with its own client ({@code -Dhandoff.clients}). */
    private static final int CLIENTS = Integer.getInteger("handoff.clients", 8);
    /** Writes a second, all clients together ({@code -Dhandoff.rate}); reads come on top. */
    private static final int RATE = Integer.getInteger("handoff.rate", 150);
    private static final int READ_EVERY = 8;
    /** Bytes of padding in each INCREMENT ({@code -Dhandoff.padding}). */
    private static final int PADDING = Integer.getInteger("handoff.padding", 1024);
    /** The peers' young generation ({@code -Dhandoff.young}). */
    private static final String YOUNG = "-Xmn" + System.getProperty("handoff.young", "48m");
    private static final int MIN_HAND_OFFS = 20;
    private static final Duration LIMIT = Duration.ofSeconds(150);
    /** How long the clients may take to finish their last calls once the load ends. */
    private static final Duration DRAIN = Duration.ofSeconds(60);
    private static final Duration READY = Duration.ofSeconds(60);
    private static final Path DIR = Path.of("target", "raftkv", "handoff-client").toAbsolutePath();

    @Test
    void stockClientsSeeNoFailedCallAndEveryIncrementAppliedOnceAcrossHandOffs() throws Exception {
        DirectoryTree.delete(DIR);
        Files.createDirectories(DIR);
        int[] ports = FreePorts.take(3);
        List<String> entries = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            entries.add("n" + i + "=127.0.0.1:" + ports[i - 1]);
        }
        String peers = String.join(",", entries);
        RaftGroup group = CounterServer.group(peers);
        List<ChildProcess> children = new ArrayList<>();
        try {
            for (int i = 1; i <= 3; i++) {
                children.add(launch("n" + i, peers));
            }
            for (int i = 1; i <= 3; i++) {
                String id = "n" + i;
                ChildProcess peer = children.get(i - 1);
                peer.awaitReady(() -> Files.readString(peer.stderr()).contains("counter ready: " + id + " on"),
                    READY, "the ready line of " + id);
            }
            run(group, children);
        } finally {
            for (ChildProcess c : children) {
                c.close(); // SIGTERM to its pid, SIGKILL after 10 s
            }
        }
    }

    private void run(RaftGroup group, List<ChildProcess> children) throws Exception {
        try (RaftClient probe = readmeClient(group)) {
            long served = within(READY, "a first linearizable GET", () -> total(probe));
            assertThat(served).as("the counter before any load").isZero();
        }
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong acknowledged = new AtomicLong();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        Queue<String> staleReads = new ConcurrentLinkedQueue<>();
        List<Worker> workers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long loadStart = System.nanoTime();
        long loadStartMillis = System.currentTimeMillis();
        for (int c = 0; c < CLIENTS; c++) {
            Worker w = new Worker("c" + c, readmeClient(group), running, acknowledged, failures, staleReads);
            workers.add(w);
            Thread t = new Thread(w, "counter-client-" + c);
            t.start();
            threads.add(t);
        }
        // a peer arms once its JVM's next collection leaves room for a request: at the latest at its first collection
        // under this load (idle, that can take half a minute); no hand-off comes before every peer is armed
        for (int i = 1; i <= 3; i++) {
            String id = "n" + i;
            ChildProcess peer = children.get(i - 1);
            peer.awaitReady(() -> Files.readString(peer.stderr()).contains("Blade raft " + id + ": armed after"),
                READY, "the armed line of " + id);
        }
        int handOffsBefore = handOffs(children);
        int handOffs = handOffsBefore;
        String deadPeer = null;
        long limit = loadStart + LIMIT.toNanos();
        try {
            while (System.nanoTime() < limit && handOffs - handOffsBefore < MIN_HAND_OFFS && deadPeer == null) {
                Thread.sleep(500);
                handOffs = handOffs(children);
                for (ChildProcess c : children) {
                    if (!c.isAlive()) {
                        deadPeer = c.stderr().getFileName().toString();
                    }
                }
            }
        } finally {
            running.set(false);
        }
        long loadNanos = System.nanoTime() - loadStart;
        long drainEnd = System.nanoTime() + DRAIN.toNanos();
        for (int i = 0; i < threads.size(); i++) {
            Thread t = threads.get(i);
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(drainEnd - System.nanoTime())));
            if (t.isAlive()) {
                failures.add(Instant.now() + " " + workers.get(i).id + " " + workers.get(i).inFlight
                    + ": NoReturn (the call had not returned " + DRAIN.toSeconds() + " s after the load ended)");
                t.interrupt();
                t.join(5_000);
            }
        }
        for (Worker w : workers) {
            w.client.close();
        }
        handOffs = handOffs(children) - handOffsBefore;

        long finalTotal;
        List<String> applied = new ArrayList<>();
        try (RaftClient verifier = readmeClient(group)) {
            finalTotal = within(DRAIN, "the final GET", () -> total(verifier));
            for (Worker w : workers) {
                applied.add(within(DRAIN, "SEQS " + w.id, () -> text(verifier.io().sendReadOnly(
                    Message.valueOf("SEQS " + w.id)))));
            }
        }

        long writes = workers.stream().mapToLong(w -> w.writeNanos.size()).sum();
        long reads = workers.stream().mapToLong(w -> w.readNanos.size()).sum();
        long acked = workers.stream().mapToLong(w -> w.acked.cardinality()).sum();
        List<Long> allWrites = new ArrayList<>();
        List<Long> allReads = new ArrayList<>();
        workers.forEach(w -> allWrites.addAll(w.writeNanos));
        workers.forEach(w -> allReads.addAll(w.readNanos));
        System.out.printf("HandOffClientIT: %d hand-offs in %.1f s of load (%s); %d writes (%d acknowledged), %d reads,"
                + " %d failed calls, %d stale reads, %d schedule restarts; writes p50 %.1f ms, p99 %.1f ms, worst %.1f ms"
                + " (%s); reads p50 %.1f ms, p99 %.1f ms, worst %.1f ms (%s); final total %d%n",
            handOffs, loadNanos / 1e9, perPeer(children), writes, acked, reads, failures.size(), staleReads.size(),
            workers.stream().mapToLong(w -> w.restarts).sum(), pct(allWrites, 50), pct(allWrites, 99),
            pct(allWrites, 100), worst(workers, true), pct(allReads, 50), pct(allReads, 99), pct(allReads, 100),
            worst(workers, false), finalTotal);
        for (Worker w : workers) {
            System.out.printf("HandOffClientIT: %s sent %d increments, acknowledged %d; slow calls (> 500 ms): %s%n",
                w.id, w.nextSeq - 1, w.acked.cardinality(), w.slow.isEmpty() ? "none" : w.slow);
        }
        System.out.println("HandOffClientIT: hand-offs in the peers' whole logs, by outcome: " + handOffKinds(children)
            + "; pauses in the peers' GC logs during the load: " + pauses(children, loadStartMillis));
        failures.forEach(f -> System.out.println("HandOffClientIT: failed call " + f));
        staleReads.forEach(s -> System.out.println("HandOffClientIT: stale read " + s));

        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(deadPeer).as("a peer exited during the load (see its log in %s)", DIR).isNull();
        softly.assertThat(handOffs).as("hand-offs logged by the peers while the clients ran (in %.0f s)",
            loadNanos / 1e9).isGreaterThanOrEqualTo(MIN_HAND_OFFS);
        softly.assertThat(List.copyOf(failures)).as("failed client calls (of %d writes and %d reads)", writes, reads)
            .isEmpty();
        softly.assertThat(List.copyOf(staleReads)).as("reads that missed increments acknowledged before them")
            .isEmpty();
        softly.assertThat(finalTotal).as("the counter after the load, against the acknowledged increments")
            .isEqualTo(acked);
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            int n = w.nextSeq - 1;
            String expected = n + " " + n + " " + (n == 0 ? "-" : n == 1 ? "1" : "1-" + n) + " -";
            softly.assertThat(applied.get(i)).as("SEQS %s (applications, distinct, ranges, duplicates) after %d "
                + "increments", w.id, n).isEqualTo(expected);
        }
        softly.assertAll();
    }

    private static ChildProcess launch(String id, String peers) throws IOException {
        List<String> command = List.of(ClusterSpec.currentJava().toString(),
            "-javaagent:" + requiredProperty("bladegc.agent.jar"),
            "-Xmx128m", YOUNG, "-XX:+UseParallelGC", "-XX:ParallelGCThreads=1",
            GcPauses.flag(DIR.resolve(id + "-gc.log")),
            "-cp", System.getProperty("java.class.path"),
            CounterServer.class.getName(),
            "--id", id, "--peers", peers, "--storage", DIR.resolve(id + "-storage").toString());
        Path log = DIR.resolve(id + ".log");
        return ChildProcess.start("counter peer " + id, command, log, log);
    }

    /** A stock client, exactly as {@link RaftBladeClients}' javadoc builds it. */
    static RaftClient readmeClient(RaftGroup group) {
        return RaftClient.newBuilder().setRaftGroup(group)
            .setProperties(RaftBladeClients.properties(new RaftProperties()))
            .setRetryPolicy(RaftBladeClients.retryPolicy())
            .build();
    }

    private static long total(RaftClient client) throws IOException {
        return Long.parseLong(text(client.io().sendReadOnly(Message.valueOf("GET"))));
    }

    private static String text(RaftClientReply reply) throws IOException {
        if (!reply.isSuccess()) {
            throw new IOException("not a success: " + reply, reply.getException());
        }
        return reply.getMessage().getContent().toStringUtf8();
    }

    /** Runs {@code call} (a retry-forever client's call) on its own thread, for at most {@code timeout}. */
    private static <T> T within(Duration timeout, String what, Callable<T> call) throws Exception {
        ExecutorService one = Executors.newSingleThreadExecutor();
        try {
            Future<T> f = one.submit(call);
            try {
                return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                f.cancel(true);
                throw new AssertionError(what + " was not answered within " + timeout.toSeconds() + " s; see the"
                    + " logs in " + DIR);
            }
        } finally {
            one.shutdownNow();
        }
    }

    /** @return the hand-offs the peers logged so far, lines containing {@code (handed } */
    private static int handOffs(List<ChildProcess> children) throws IOException {
        int n = 0;
        for (ChildProcess c : children) {
            n += handOffsOf(c);
        }
        return n;
    }

    private static int handOffsOf(ChildProcess c) throws IOException {
        return (int) Files.readAllLines(c.stderr()).stream().filter(l -> l.contains("(handed ")).count();
    }

    private static String perPeer(List<ChildProcess> children) throws IOException {
        List<String> out = new ArrayList<>();
        for (ChildProcess c : children) {
            out.add(c.stderr().getFileName().toString().replace(".log", "") + " " + handOffsOf(c));
        }
        return String.join(", ", out);
    }

    /** @return the hand-off lines by what followed: a collection under the grant, or the JVM's own, or other */
    private static String handOffKinds(List<ChildProcess> children) throws IOException {
        long granted = 0;
        long cancelled = 0;
        long other = 0;
        long leftToJvm = 0;
        for (ChildProcess c : children) {
            for (String l : Files.readAllLines(c.stderr())) {
                if (l.contains("left to the JVM")) {
                    leftToJvm++;
                }
                if (!l.contains("(handed ")) {
                    continue;
                }
                if (l.contains(" granted (epoch") && l.contains("(COLLECTED)")) {
                    granted++;
                } else if (l.contains(" cancelled (")) {
                    cancelled++;
                } else {
                    other++;
                }
            }
        }
        return granted + " followed by a collection under the grant, " + cancelled + " cancelled (the JVM collected"
            + " on its own first), " + other + " other; " + leftToJvm + " collections left to the JVM";
    }

    private static String pauses(List<ChildProcess> children, long fromMillis) throws IOException {
        List<String> out = new ArrayList<>();
        for (ChildProcess c : children) {
            String id = c.stderr().getFileName().toString().replace(".log", "");
            List<GcPauses> p = GcPauses.read(id, DIR.resolve(id + "-gc.log")).stream()
                .filter(g -> g.startMillis() >= fromMillis).toList();
            out.add(String.format(Locale.ROOT, "%s %d (longest %.1f ms)", id, p.size(),
                p.stream().mapToDouble(GcPauses::millis).max().orElse(0)));
        }
        return String.join(", ", out);
    }

    private static double pct(List<Long> nanos, int p) {
        if (nanos.isEmpty()) {
            return Double.NaN;
        }
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i))) / 1e6;
    }

    private static String worst(List<Worker> workers, boolean write) {
        Worker worst = null;
        for (Worker w : workers) {
            if (worst == null || (write ? w.worstWrite > worst.worstWrite : w.worstRead > worst.worstRead)) {
                worst = w;
            }
        }
        return worst == null ? "-" : worst.id + " at " + (write ? worst.worstWriteAt : worst.worstReadAt);
    }

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set; run through Maven (failsafe)");
        }
        return value;
    }

    /** One client thread: its own stock client, its own sequence numbers. */
    private static final class Worker implements Runnable {
        final String id;
        final RaftClient client;
        final AtomicBoolean running;
        final AtomicLong acknowledged;
        final Queue<String> failures;
        final Queue<String> staleReads;
        final String padding = "x".repeat(PADDING);
        final BitSet acked = new BitSet();
        final List<Long> writeNanos = new ArrayList<>();
        final List<Long> readNanos = new ArrayList<>();
        final List<String> slow = new ArrayList<>();
        volatile String inFlight = "-";
        int nextSeq = 1;
        long restarts;
        long worstWrite;
        long worstRead;
        String worstWriteAt = "-";
        String worstReadAt = "-";

        Worker(String id, RaftClient client, AtomicBoolean running, AtomicLong acknowledged, Queue<String> failures,
               Queue<String> staleReads) {
            this.id = id;
            this.client = client;
            this.running = running;
            this.acknowledged = acknowledged;
            this.failures = failures;
            this.staleReads = staleReads;
        }

        @Override
        public void run() {
            long period = TimeUnit.SECONDS.toNanos(1) * CLIENTS / RATE;
            long next = System.nanoTime() + ThreadLocalRandom.current().nextLong(period);
            long tick = 0;
            try {
                while (running.get()) {
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    } else if (-wait > TimeUnit.SECONDS.toNanos(2)) {
                        next = System.nanoTime();
                        restarts++;
                    }
                    next += period;
                    tick++;
                    write();
                    if (tick % READ_EVERY == 0 && running.get()) {
                        read();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void write() {
            int seq = nextSeq++;
            inFlight = "INCREMENT " + seq + " sent " + Instant.now();
            long t0 = System.nanoTime();
            try {
                RaftClientReply reply = RaftBladeClients.send(client,
                    Message.valueOf("INCREMENT " + id + " " + seq + " " + padding));
                long dt = System.nanoTime() - t0;
                if (!reply.isSuccess()) {
                    fail("INCREMENT " + seq, t0, reply.getException());
                    return;
                }
                acked.set(seq);
                acknowledged.incrementAndGet();
                writeNanos.add(dt);
                if (dt > worstWrite) {
                    worstWrite = dt;
                    worstWriteAt = "INCREMENT " + seq + " ending " + Instant.now();
                }
                noteSlow("W" + seq, dt);
            } catch (IOException | RuntimeException e) {
                fail("INCREMENT " + seq, t0, e);
            } finally {
                inFlight = "-";
            }
        }

        private void read() {
            long floor = acknowledged.get();
            inFlight = "GET sent " + Instant.now();
            long t0 = System.nanoTime();
            try {
                RaftClientReply reply = client.io().sendReadOnly(Message.valueOf("GET"));
                long dt = System.nanoTime() - t0;
                if (!reply.isSuccess()) {
                    fail("GET", t0, reply.getException());
                    return;
                }
                long total = Long.parseLong(reply.getMessage().getContent().toStringUtf8());
                readNanos.add(dt);
                if (dt > worstRead) {
                    worstRead = dt;
                    worstReadAt = "ending " + Instant.now();
                }
                noteSlow("R", dt);
                if (total < floor) {
                    staleReads.add(Instant.now() + " " + id + ": GET answered " + total + ", " + floor
                        + " increments were acknowledged before it was sent");
                }
            } catch (IOException | RuntimeException e) {
                fail("GET", t0, e);
            } finally {
                inFlight = "-";
            }
        }

        private void noteSlow(String what, long nanos) {
            if (nanos > TimeUnit.MILLISECONDS.toNanos(500)) {
                slow.add(what + " " + nanos / 1_000_000 + " ms ending " + Instant.now());
            }
        }

        private void fail(String what, long t0, Throwable e) {
            failures.add(Instant.now() + " " + id + " " + what + " after " + (System.nanoTime() - t0) / 1_000_000
                + " ms: " + (e == null ? "a reply that is not a success" : e.getClass().getName() + ": "
                + e.getMessage()));
        }
    }
}
