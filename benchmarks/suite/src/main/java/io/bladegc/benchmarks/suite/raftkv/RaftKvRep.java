package io.bladegc.benchmarks.suite.raftkv;

import io.bladegc.benchmarks.suite.harness.MachineCpu;
import io.bladegc.benchmarks.suite.harness.ProcessUsage;
import io.bladegc.benchmarks.suite.harness.WakeupJitter;
import java.util.List;

/**
 * One arm's run in one repetition of the {@code raft-kv} scenario, reduced to what its tables report. Immutable
 * apart from the load result's histogram and requests, which nobody changes after the run.
 *
 * @param arm           the arm
 * @param rep           the repetition, from 1
 * @param load          the measured window's load result, null when the run failed
 * @param changes       the group's hand-offs and elections that started in the window (the peers' output)
 * @param termsAdvanced how far the group's term moved during the window ({@code GroupManagementApi}), -1 unknown
 * @param collections   collections with a pause per peer during the window, in peer order
 * @param longestPause  the longest GC pause of any peer during the window, ms
 * @param allocation    the most any peer allocated, MiB/s over its whole run (GC log), NaN when unknown
 * @param usage         what the machine did during the window, null when unknown
 * @param failure       why the run failed or what went wrong in it (a peer exited), null when nothing did
 */
record RaftKvRep(String arm, int rep, RaftKvLoad.Result load, RaftKvLeadership.Changes changes, long termsAdvanced,
                 List<Integer> collections, double longestPause, double allocation, Usage usage, String failure) {
    /**
     * The machine during the window.
     *
     * @param machineCores cores busy on average, whoever used them ({@link MachineCpu})
     * @param stealCores   cores the hypervisor took for others on average
     * @param peerCores    cores the three peers used on average ({@link ProcessUsage})
     * @param loadCores    cores the load generator's JVM (the suite's) used on average
     * @param jitter       how late 1 ms sleeps in the load generator's JVM woke up during the window
     */
    record Usage(double machineCores, double stealCores, double peerCores, double loadCores, WakeupJitter jitter) {
    }

    /** @return a run that failed before it measured anything */
    static RaftKvRep failed(String arm, int rep, String failure) {
        return new RaftKvRep(arm, rep, null, new RaftKvLeadership.Changes(List.of(), List.of(), List.of()), -1,
            List.of(), 0,
            Double.NaN, null, failure);
    }

    /** @return whether the window was measured */
    boolean measured() {
        return load != null;
    }

    /** @return the elections that no hand-off explains (from the peers' output) */
    int elections() {
        return changes.notFromHandoffs().size();
    }

    /** @return the run's hand-offs with what the requests due around each saw */
    List<RaftKvHandoffs.Row> handoffRows() {
        return measured() ? RaftKvHandoffs.rows(changes.handoffs(), load.requests()) : List.of();
    }
}
