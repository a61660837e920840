/**
 * The {@code raft-kv}, {@code raft-kv-heavy} and {@code raft-counter} scenarios: a three-peer replicated key-value
 * store on Apache Ratis under open-loop load, its clients, leadership and hand-offs, and its tables and goals.
 */
package io.bladegc.benchmarks.suite.raftkv;
