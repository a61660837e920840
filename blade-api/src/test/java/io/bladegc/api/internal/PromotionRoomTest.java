package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromotionRoomTest {
    private static final long MIB = 1 << 20;

    @Test
    void aFullCollectionComesDueAfterTheYoungCollectionsTheOldGenerationStillTakesWithTwoToSpare() {
        // 400 MiB of room, 45 MiB promoted per young collection: 8 fit, two are kept in reserve, so six more young
        // collections after the next one, every 700 ms
        assertThat(PromotionRoom.fullDueNanos(100_000_000L, 400 * MIB, 45 * MIB, 700e6))
            .isEqualTo(100_000_000L + 6 * 700_000_000L);
        assertThat(PromotionRoom.fullDueNanos(100_000_000L, 80 * MIB, 45 * MIB, 700e6))
            .as("no room for two: the next collection is the full one").isEqualTo(100_000_000L);
    }

    @Test
    void unknownWhenTheNextCollectionIsUnknownOrNoPeriodOrPromotionWasMeasured() {
        assertThat(PromotionRoom.fullDueNanos(Long.MAX_VALUE, 400 * MIB, 45 * MIB, 700e6)).isEqualTo(Long.MAX_VALUE);
        assertThat(PromotionRoom.fullDueNanos(100_000_000L, 400 * MIB, 45 * MIB, 0)).isEqualTo(Long.MAX_VALUE);
        assertThat(PromotionRoom.fullDueNanos(100_000_000L, Long.MAX_VALUE, 1, 1e12)).isEqualTo(Long.MAX_VALUE);
        assertThat(new PromotionRoom(false, new PromotionAverage(10, 3)).fullDueNanos(100_000_000L, 400 * MIB, 700e6))
            .as("no young collection yet").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void onParallelTheNextYoungCollectionIsTheFullOneWhenItsPromotionWouldLeaveLessThanThePaddedAverage() {
        PromotionRoom room = new PromotionRoom(false, new PromotionAverage(10, 3));
        for (int i = 0; i < 200; i++) {
            room.onYoung(10 * MIB);
        }
        room.onYoung(60 * MIB); // padded average 28.5 MiB (PromotionAverageTest)
        long survivor = 8 * MIB;
        // the next young collection promotes about the average (15 MiB); after it Parallel wants 28.5 MiB free
        assertThat(room.fullReason(44 * MIB + survivor, survivor)).as("room for both").isNull();
        assertThat(room.fullReason(43 * MIB + survivor, survivor))
            .isEqualTo("the old generation has 51 MiB free, less than the next young collection's promotion (15 MiB,"
                + " the JVM's average), the JVM's padded average (28 MiB) and a survivor space (8 MiB)");
        assertThat(room.fullSoon(140 * MIB + survivor, survivor)).as("fewer than five padded averages").isTrue();
        assertThat(room.fullSoon(150 * MIB + survivor, survivor)).isFalse();
        room.onOld();
        assertThat(room.perYoung()).as("Parallel's average does not start anew after a full collection")
            .isGreaterThan(28 * MIB);
    }

    @Test
    void onG1OneYoungCollectionsPromotionIsKeptFromAnAverageThatJumpsUpAndStartsAnewAfterAFullCollection() {
        PromotionRoom room = new PromotionRoom(true, new PromotionAverage(10, 3));
        room.onYoung(10 * MIB);
        room.onYoung(40 * MIB);
        assertThat(room.perYoung()).as("a spike is taken at once").isEqualTo(40 * MIB);
        room.onYoung(0);
        assertThat(room.perYoung()).as("then decays by a quarter").isEqualTo(30 * MIB);
        assertThat(room.fullReason(31 * MIB, MIB)).as("one young collection's worth").isNull();
        assertThat(room.fullReason(30 * MIB, MIB)).startsWith("the old generation has 30 MiB free, less than one"
            + " young collection's promotion (30 MiB) and");
        assertThat(room.fullSoon(0, 0)).as("never soon on G1").isFalse();
        room.onOld();
        assertThat(room.perYoung()).isZero();
    }
}
