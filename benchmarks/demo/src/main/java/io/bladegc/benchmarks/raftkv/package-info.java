/**
 * A replicated key-value store on Apache Ratis with Blade for Raft, for the {@code raft-kv} benchmarks:
 * {@link io.bladegc.benchmarks.raftkv.KvServer} (one peer running {@link io.bladegc.benchmarks.raftkv.KvStateMachine}),
 * {@link io.bladegc.benchmarks.raftkv.KvClient} and {@link io.bladegc.benchmarks.raftkv.KvCli}, the wire format
 * ({@link io.bladegc.benchmarks.raftkv.KvCommand}, {@link io.bladegc.benchmarks.raftkv.KvReply}), and
 * {@link io.bladegc.benchmarks.raftkv.LinearizabilityChecker}, which checks a history of
 * {@link io.bladegc.benchmarks.raftkv.KvOperation}s.
 */
package io.bladegc.benchmarks.raftkv;
