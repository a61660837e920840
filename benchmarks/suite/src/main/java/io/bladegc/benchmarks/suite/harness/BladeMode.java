package io.bladegc.benchmarks.suite.harness;

/** How an arm's backends run Blade. */
public enum BladeMode {
    /** No agent, no filter ({@code --blade off}). */
    NONE,
    /**
     * GC-induced shedding alone: the servlet filter ({@code --blade on}) and the agent in single-node mode, no
     * coordinator; a node sheds (503) around its own collections and HAProxy retries the 503 on another server.
     */
    GCI,
    /**
     * The filter and the agent in coordinated mode, with the coordinator draining a node in HAProxy around each
     * collection.
     */
    COORDINATED
}
