package io.bladegc.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OptionMessagesTest {
    @Test
    void aHugeValueIsCutWithItsLengthSaid() {
        String message = "malformed option 'margin=" + "9".repeat(100_000) + "'";
        String line = OptionMessages.bounded(message);
        assertThat(line).hasSizeLessThan(OptionMessages.MAX_CHARS + 40)
            .startsWith("malformed option 'margin=999").endsWith("... (" + message.length() + " characters in all)");
    }

    @Test
    void controlCharactersAreEscapedNotEchoed() {
        assertThat(OptionMessages.bounded("unknown option 'a\nb\u0007'")).isEqualTo("unknown option 'a\\nb\\u0007'");
    }

    @Test
    void aShortMessageIsLeftAsItIs() {
        assertThat(OptionMessages.bounded("unknown option 'nope'")).isEqualTo("unknown option 'nope'");
    }

    @Test
    void thousandsOfErrorsMakeAHandfulOfLinesAndACount() {
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            errors.add("unknown option 'k" + i + "'");
        }
        List<String> lines = OptionMessages.lines(errors, "; off");
        assertThat(lines).hasSize(OptionMessages.MAX_LINES + 1);
        assertThat(lines.get(0)).isEqualTo("[blade] unknown option 'k0'; off");
        assertThat(lines.get(OptionMessages.MAX_LINES)).isEqualTo("[blade] and 4995 more option errors; off");
    }
}
