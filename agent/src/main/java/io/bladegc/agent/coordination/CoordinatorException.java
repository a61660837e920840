package io.bladegc.agent.coordination;

/**
 * A coordinator call that did not get the answer it asked for: the coordinator is unreachable, slow, refuses, or
 * answers something else. Its message is one line and never contains the token. Immutable.
 */
final class CoordinatorException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What went wrong, as far as the node's next step is concerned. */
    enum Kind {
        /** Connection refused, reset or closed, host unknown: the coordinator is down. */
        UNREACHABLE(true),
        /** No answer within {@code coordinatorTimeout}: the coordinator is slow or black-holed. */
        TIMEOUT(true),
        /** 404: the coordinator does not know this node (it restarted, or lost the node): join again. */
        UNKNOWN_NODE(false),
        /** 409 {@code STALE_EPOCH}: a release or renewal for a grant the node no longer holds (the lease ended). */
        STALE_EPOCH(false),
        /** 400, or 409 {@code REJECTED}: the coordinator refused the request; its message says why. */
        REJECTED(false),
        /** 401 or 403: the token is missing or wrong. */
        UNAUTHORIZED(true),
        /**
         * 503 {@code NOT_LEADER}: this replica of a replicated coordinator is not the Raft leader and serves no node
         * call; the client tries the next replica. A call fails with it only when no replica served it.
         */
        NOT_LEADER(true),
        /**
         * Any other status (404 {@code NOT_FOUND}: a wrong URL, 503 {@code UNAVAILABLE}: shutting down or the member
         * limit, ...), or a body that is not the JSON expected.
         */
        BAD_ANSWER(true);

        private final boolean coordinatorDown;

        Kind(boolean coordinatorDown) {
            this.coordinatorDown = coordinatorDown;
        }

        /** @return whether the node should consider the coordinator down and fail open until it answers again */
        boolean coordinatorDown() {
            return coordinatorDown;
        }
    }

    private final Kind kind;
    private final int status;

    /**
     * @param kind    what went wrong
     * @param status  the HTTP status, or -1 when there was no answer
     * @param message one line
     */
    CoordinatorException(Kind kind, int status, String message) {
        super(message, null, false, false);
        this.kind = kind;
        this.status = status;
    }

    Kind kind() {
        return kind;
    }

    /** @return the HTTP status, or -1 when there was no answer */
    int status() {
        return status;
    }
}
