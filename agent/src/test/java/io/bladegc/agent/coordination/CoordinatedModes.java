package io.bladegc.agent.coordination;

import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;

/** What the agent's own tests, outside this package, do with a {@link CoordinatedMode}. */
public final class CoordinatedModes {
    private CoordinatedModes() {
    }

    /** Starts one as the agent does, but without the shutdown hook: the test closes it. */
    public static CoordinatedMode startWithoutHook(BladeNode node, BladeOptions options, System.Logger log) {
        return CoordinatedMode.start(node, options, log, Membership.HEARTBEAT_INTERVAL, false);
    }

    /** @return why the mode's node is not a member of the cluster, or {@code "up"} */
    public static String downReason(CoordinatedMode mode) {
        return mode.membership().downReason();
    }
}
