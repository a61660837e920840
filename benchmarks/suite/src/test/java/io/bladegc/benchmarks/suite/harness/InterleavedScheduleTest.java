package io.bladegc.benchmarks.suite.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class InterleavedScheduleTest {
    private static Arm arm(String name) {
        return new Arm(name, Path.of("java"), List.of(), BladeMode.NONE, name);
    }

    @Test
    void evenRepetitionsRunTheArmsInReverse() {
        List<InterleavedSchedule.Slot> slots = InterleavedSchedule.of(List.of(arm("a"), arm("b"), arm("c")), 3);
        assertThat(slots).extracting(s -> s.rep() + s.arm().name())
            .containsExactly("1a", "1b", "1c", "2c", "2b", "2a", "3a", "3b", "3c");
    }

    @Test
    void atLeastOneRepetition() {
        assertThatThrownBy(() -> InterleavedSchedule.of(List.of(arm("a")), 0))
            .isInstanceOf(IllegalArgumentException.class);
    }
}
