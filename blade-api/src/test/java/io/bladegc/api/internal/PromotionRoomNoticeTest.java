package io.bladegc.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.Generation;
import org.junit.jupiter.api.Test;

class PromotionRoomNoticeTest {
    private final PromotionRoomNotice notice = new PromotionRoomNotice();

    private String young() {
        return notice.check(new GcEvents.Collection("PS Scavenge", 1, "Allocation Failure", 0, 20, true, true,
            Generation.YOUNG, 0, 0, 0));
    }

    private String full(String cause) {
        return notice.check(new GcEvents.Collection("PS MarkSweep", 1, cause, 1_000, 1_612, true, true,
            Generation.OLD, 0, 0, 0));
    }

    @Test
    void fullCollectionsInARowInPlaceOfYoungOnesAreToldOnceWithTheFlagsThatHelp() {
        assertThat(full("Ergonomics")).isNull();
        assertThat(young()).isNull();
        assertThat(full("Ergonomics")).isNull();
        String told = full("Ergonomics");
        assertThat(told).contains("3 full collections in a row", "cause Ergonomics, the last 612 ms", "-Xmn", "-Xmx");
        assertThat(full("Ergonomics")).as("once").isNull();
    }

    @Test
    void anOldGenerationThatComesDueNowAndThenIsNoCauseForANotice() {
        for (int cycle = 0; cycle < 10; cycle++) {
            for (int i = 0; i < 5; i++) {
                assertThat(young()).isNull();
            }
            assertThat(full("Ergonomics")).isNull();
        }
    }

    @Test
    void fullCollectionsSomeoneAskedForBreakTheRow() {
        assertThat(full("Ergonomics")).isNull();
        assertThat(full("Ergonomics")).isNull();
        assertThat(full("System.gc()")).isNull();
        assertThat(full("Ergonomics")).isNull();
        assertThat(full("Ergonomics")).isNull();
        assertThat(full("Ergonomics")).isNotNull();
    }
}
