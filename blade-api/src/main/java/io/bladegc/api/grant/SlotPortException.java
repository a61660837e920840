package io.bladegc.api.grant;

/** A call to the slot ledger that failed: refused, not answered in time, or answered with something unusable. */
public class SlotPortException extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean timedOut;

    /**
     * @param message  what failed, e.g. {@code coordinator unreachable: connection refused}
     * @param timedOut whether the call got no answer in time (it may still be executed: the holder withdraws it)
     * @param cause    the underlying failure, or {@code null}
     */
    public SlotPortException(String message, boolean timedOut, Throwable cause) {
        super(message, cause);
        this.timedOut = timedOut;
    }

    /** @return whether the call got no answer in time, so that the ledger may still execute it */
    public boolean timedOut() {
        return timedOut;
    }
}
