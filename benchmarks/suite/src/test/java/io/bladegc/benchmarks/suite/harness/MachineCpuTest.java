package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MachineCpuTest {
    @Test
    void busyIsEverythingButIdleAndIowaitAndStealIsApart() {
        // user nice system idle iowait irq softirq steal guest guest_nice
        MachineCpu before = MachineCpu.parse("cpu  100 10 50 9000 40 5 5 20 0 0\ncpu0 50 5 25 4500 20 2 3 10 0 0\n");
        MachineCpu after = MachineCpu.parse("cpu  250 10 100 9100 60 10 10 70 0 0\n");
        assertThat(before).isEqualTo(new MachineCpu(170, 20));
        MachineCpu window = after.since(before);
        assertThat(window).isEqualTo(new MachineCpu(210, 50));
        assertThat(window.busyCores(1.5)).isCloseTo(1.4, within(1e-9));
        assertThat(window.stealCores(1.5)).isCloseTo(1 / 3.0, within(1e-9));
    }

    @Test
    void anOldKernelWithoutStealHasNone() {
        assertThat(MachineCpu.parse("cpu  1 2 3 4 5 6 7\n")).isEqualTo(new MachineCpu(1 + 2 + 3 + 6 + 7, 0));
    }

    @Test
    void theFirstLineMustBeTheTotal() {
        assertThatThrownBy(() -> MachineCpu.parse("intr 1 2 3\n")).isInstanceOf(IllegalArgumentException.class);
    }
}
