package io.bladegc.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OptionMessagesTest {
    @Test
    void aHugeMessageIsCutWithItsLengthSaid() {
        String message = "malformed option 'margin=" + "9".repeat(100_000) + "'";
        String line = OptionMessages.bounded(message);
        assertThat(line).hasSize(OptionMessages.MAX_CHARS + ("...(" + message.length() + " chars)").length())
            .startsWith("malformed option 'margin=999").endsWith("9...(" + message.length() + " chars)");
    }

    @Test
    void controlCharactersAreEscapedNotEchoed() {
        assertThat(OptionMessages.bounded("unknown option 'a\nb\r\tc\u0007\u001b[31m'"))
            .isEqualTo("unknown option 'a\\nb\\r\\tc\\u0007\\u001b[31m'");
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
        assertThat(lines.get(OptionMessages.MAX_LINES - 1)).isEqualTo("[blade] unknown option 'k4'; off");
        assertThat(lines.get(OptionMessages.MAX_LINES)).isEqualTo("[blade] ... and 4995 more; off");
    }

    @Test
    void asManyErrorsAsLinesHaveNoCount() {
        List<String> errors = List.of("a", "b", "c", "d", "e");
        assertThat(OptionMessages.lines(errors, "")).hasSize(OptionMessages.MAX_LINES).last().isEqualTo("[blade] e");
    }

    @Test
    void theStrictLineIsOneLineWithTheFirstErrorAndACount() {
        assertThat(OptionMessages.strictLine(List.of("unknown option 'bogus'\n", "x", "y")))
            .isEqualTo("[blade] strict=true and the options are invalid: unknown option 'bogus'\\n (and 2 more)");
        assertThat(OptionMessages.strictLine(List.of("unknown option 'bogus'")))
            .isEqualTo("[blade] strict=true and the options are invalid: unknown option 'bogus'");
    }
}
