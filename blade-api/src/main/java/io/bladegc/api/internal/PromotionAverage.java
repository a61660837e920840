package io.bladegc.api.internal;

/**
 * What Serial and Parallel expect a young collection to promote when they decide whether to collect the whole heap:
 * HotSpot's padded average of the bytes each young collection moved into the old generation. An exponentially
 * weighted average that gives a new sample {@code AdaptiveSizePolicyWeight} percent (10 by default; the first samples
 * weigh 1, 1/2, 1/3 and so on while that is more), the same average of each sample's distance from it (a sample of 0
 * leaves that deviation as it was), and the padded average: the average plus {@code PromotedPadding} (3 by default)
 * deviations. Parallel collects the whole heap right after a young collection when the padded average is above the
 * old generation's free room (the cause is then {@value PromotionRoomNotice#CAUSE}), and in place of the young one when
 * it is not below it; Serial does the latter. A burst that promotes five times the usual raises the padded average far
 * more than the average: planning from the average alone let such full collections come unplanned.
 *
 * <p>Thread-safe.
 */
final class PromotionAverage {
    /** HotSpot's count after which the weight is the configured one alone. */
    private static final int OLD_THRESHOLD = 100;

    private final int weightPercent;
    private final int padding;
    private long count;
    private volatile double average;
    private double deviation;
    private volatile double padded;

    /**
     * @param weightPercent what share of the average a new sample makes, in percent (HotSpot's
     *                      {@code AdaptiveSizePolicyWeight})
     * @param padding       how many deviations pad the average (HotSpot's {@code PromotedPadding})
     */
    PromotionAverage(int weightPercent, int padding) {
        this.weightPercent = weightPercent;
        this.padding = padding;
    }

    /** @return the average as this JVM keeps it: its flags' values, HotSpot's defaults where they cannot be read */
    static PromotionAverage ofThisJvm() {
        long weight = HeapLayout.vmSize("AdaptiveSizePolicyWeight");
        long padding = HeapLayout.vmSize("PromotedPadding");
        return new PromotionAverage(weight > 0 && weight <= 100 ? (int) weight : 10,
            padding > 0 && padding <= 100 ? (int) padding : 3);
    }

    /** @param promoted what one young collection promoted, in bytes */
    synchronized void sample(long promoted) {
        count++;
        average = weighted(average, promoted);
        if (promoted != 0) {
            deviation = weighted(deviation, Math.abs(promoted - average));
        }
        padded = average + padding * deviation;
    }

    private double weighted(double previous, double sample) {
        long weight = count > OLD_THRESHOLD ? weightPercent : Math.max(weightPercent, OLD_THRESHOLD / count);
        return ((100 - weight) * previous + weight * sample) / 100;
    }

    /** @return the average in bytes; 0 before the first young collection */
    long average() {
        return (long) average;
    }

    /** @return the padded average in bytes; 0 before the first young collection */
    long padded() {
        return (long) padded;
    }
}
