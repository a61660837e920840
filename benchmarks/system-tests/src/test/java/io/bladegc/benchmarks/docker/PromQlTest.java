package io.bladegc.benchmarks.docker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromQlTest {

    @Test
    void aRateReadsItsCounterNotTheFunctionOrTheRange() {
        assertThat(PromQl.metricNames("rate(blade_coordinator_grants_total[$__rate_interval])"))
            .containsExactly("blade_coordinator_grants_total");
    }

    @Test
    void groupingLabelsAndMatchersAreNotMetricNames() {
        assertThat(PromQl.metricNames("sum by (instance, phase) (rate(blade_coordination_phase_seconds_sum"
                + "{phase=\"gc\", job=~\"blade.*\"}[5m])) / ignoring (le) sum without (x) (rate("
                + "blade_coordination_phase_seconds_count[5m]))"))
            .containsExactly("blade_coordination_phase_seconds_sum", "blade_coordination_phase_seconds_count");
    }

    @Test
    void bareSelectorsKeywordsAndNumbers() {
        assertThat(PromQl.metricNames("blade_gate_open == bool 1 or up offset 5m > 1e3"))
            .containsExactly("blade_gate_open", "up");
    }

    @Test
    void grafanaVariablesAreNotMetricNames() {
        assertThat(PromQl.metricNames("increase(blade_node_drain_timeouts_total[${__range}]) * $scale"))
            .containsExactly("blade_node_drain_timeouts_total");
    }
}
