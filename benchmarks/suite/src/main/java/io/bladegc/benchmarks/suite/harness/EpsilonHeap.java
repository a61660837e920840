package io.bladegc.benchmarks.suite.harness;

import java.time.Duration;
import java.util.Locale;

/**
 * The heap of a cluster scenario's Epsilon backend: everything it allocates in its run, since nothing is ever freed,
 * estimated from the rate one backend serves and what each request allocates. Immutable.
 *
 * @param baseMib        what a backend needs besides the per-request garbage: live set, server, classes, start-up
 * @param ratePerBackend requests per second one backend serves
 * @param kibPerRequest  the workload's allocation per request, KiB (without {@link #REQUEST_OVERHEAD_KIB})
 * @param runTime        warm-up plus measured window
 */
public record EpsilonHeap(int baseMib, double ratePerBackend, int kibPerRequest, Duration runTime) {
    /** Per request besides the workload's own allocation: the server's request and response objects, generously. */
    static final int REQUEST_OVERHEAD_KIB = 8;
    /** Margin on the estimate: Epsilon never frees, so running out ends the backend. */
    static final double MARGIN = 1.5;
    /** Time a backend runs besides warm-up and measured window: start, snapshots, the last answers. */
    static final Duration EXTRA_TIME = Duration.ofSeconds(30);

    /**
     * @return {@link #baseMib} + rate x (kibPerRequest + {@link #REQUEST_OVERHEAD_KIB}) x (runTime +
     *     {@link #EXTRA_TIME}) x {@link #MARGIN}, rounded up to a multiple of 64 MiB
     */
    public long mib() {
        double seconds = runTime.plus(EXTRA_TIME).toMillis() / 1000.0;
        double mib = baseMib + ratePerBackend * (kibPerRequest + REQUEST_OVERHEAD_KIB) * seconds * MARGIN / 1024;
        return (long) Math.ceil(mib / 64) * 64;
    }

    /** @return the sizing as a line of the report's notes, e.g. {@code "epsilon: heap 3136 MiB per backend = ..."} */
    public String note() {
        return String.format(Locale.ROOT, "epsilon: heap %d MiB per backend = %d MiB + %.0f req/s x (%d + %d KiB) per"
            + " request x (%d s + %d s) x %.1f", mib(), baseMib, ratePerBackend, kibPerRequest, REQUEST_OVERHEAD_KIB,
            runTime.toSeconds(), EXTRA_TIME.toSeconds(), MARGIN);
    }
}
