package io.bladegc.api.grant;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScheduleLeadTest {
    @Test
    void theLongestOfTheRecentEventsCountsAndAnOldPeakAgesOut() {
        ScheduleLead lead = new ScheduleLead(1_000, 0);
        assertThat(lead.nanos()).isZero();
        lead.granted(5);
        lead.granted(300);
        lead.granted(7);
        assertThat(lead.nanos()).isEqualTo(300);
        for (int i = 0; i < ScheduleLead.WINDOW - 1; i++) {
            lead.granted(4);
        }
        assertThat(lead.nanos()).as("the 300 fell out of the window").isEqualTo(7);
        lead.granted(4);
        assertThat(lead.nanos()).isEqualTo(4);
    }

    @Test
    void beingOvertakenCountsTwiceTheWaitAndEverythingIsCapped() {
        ScheduleLead lead = new ScheduleLead(1_000, 0);
        lead.overtaken(200);
        assertThat(lead.nanos()).isEqualTo(400);
        lead.overtaken(Long.MAX_VALUE);
        assertThat(lead.nanos()).isEqualTo(1_000);
        lead.granted(-5);
        assertThat(lead.nanos()).isEqualTo(1_000);
    }

    @Test
    void aNodeThatQueuedAsksEarlierOnceByTheLongestFullPauseAndTheMargin() {
        ScheduleLead lead = new ScheduleLead(10_000_000_000L, 0);
        lead.granted(40_000_000);
        lead.leaveStep(-1);
        assertThat(lead.nanos()).as("no full pause measured: the floor")
            .isEqualTo(40_000_000 + ScheduleLead.SHIFT_FLOOR_NANOS + ScheduleLead.SHIFT_MARGIN_NANOS);
        lead.requestCame();
        assertThat(lead.nanos()).as("spent on the request it was meant for").isEqualTo(40_000_000);
        lead.leaveStep(600_000_000);
        assertThat(lead.nanos()).isEqualTo(40_000_000 + 600_000_000 + ScheduleLead.SHIFT_MARGIN_NANOS);
    }

    @Test
    void aWaitOlderThanTheHorizonNoLongerCountsSoANodeThatLeftItsCollectionsToTheJvmAsksAgain() {
        ScheduleLead lead = new ScheduleLead(10_000_000_000L, 0);
        lead.record(1_200_000_000L, 0); // one long wait behind another peer's window
        lead.record(20_000_000L, 3_000_000_000L);
        assertThat(lead.nanos(ScheduleLead.HORIZON_NANOS)).isEqualTo(1_200_000_000L);
        assertThat(lead.nanos(ScheduleLead.HORIZON_NANOS + 1)).as("the long wait aged out").isEqualTo(20_000_000L);
        assertThat(lead.nanos(3_000_000_000L + ScheduleLead.HORIZON_NANOS + 1)).as("every wait aged out").isZero();
    }

    @Test
    void aQueuedPollMovesTheNextRequestAtMostAQuarterOfTheNodesPeriodEarlier() {
        ScheduleLead lead = new ScheduleLead(10_000_000_000L, 0);
        lead.requested(0);
        lead.requested(400_000_000L); // under load: a request every 400 ms
        lead.leaveStep(500_000_000L); // a 500 ms full pause measured: 600 ms uncapped, more than the period
        assertThat(lead.nanos()).as("a quarter of the period: the eden collected is three quarters full")
            .isEqualTo(100_000_000L);
        lead.requested(800_000_000L);
        assertThat(lead.nanos()).as("spent").isZero();
        lead.requested(10_800_000_000L); // light load: a request every 10 s
        lead.leaveStep(500_000_000L);
        assertThat(lead.nanos()).isEqualTo(500_000_000L + ScheduleLead.SHIFT_MARGIN_NANOS);
    }
}
