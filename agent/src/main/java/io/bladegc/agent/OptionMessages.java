package io.bladegc.agent;

import io.bladegc.api.BladeOptionsParser;
import java.util.ArrayList;
import java.util.List;

/**
 * What the agent prints about bad options, bounded whatever the options hold. The parser already shows at most 80
 * characters of any value it quotes, control characters escaped; here each message is escaped once more and cut at
 * {@value #MAX_CHARS} characters (a line stays one line, whoever built the message), and at most {@value #MAX_LINES}
 * messages are printed, then one line that counts the rest. Stateless.
 */
final class OptionMessages {
    /** The longest message printed, characters: the longest the parser makes is about 400. */
    static final int MAX_CHARS = 600;
    /** The most messages printed one per line; the rest are counted in one more line. */
    static final int MAX_LINES = 5;

    private OptionMessages() {
    }

    /**
     * @param errors the parser's messages, as many as the options made
     * @param suffix what ends each line (what happens now)
     * @return at most {@value #MAX_LINES} + 1 lines to print, each with the agent's prefix
     */
    static List<String> lines(List<String> errors, String suffix) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < errors.size() && i < MAX_LINES; i++) {
            out.add(BladeAgent.PREFIX + bounded(errors.get(i)) + suffix);
        }
        if (errors.size() > MAX_LINES) {
            out.add(BladeAgent.PREFIX + "... and " + (errors.size() - MAX_LINES) + " more" + suffix);
        }
        return out;
    }

    /**
     * @param errors the parser's messages, at least one
     * @return the one line that says why {@code strict=true} stops the agent: the first message and how many more
     */
    static String strictLine(List<String> errors) {
        return BladeAgent.PREFIX + "strict=true and the options are invalid: " + bounded(errors.get(0))
            + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "");
    }

    /**
     * @return {@code message} with control characters escaped (a newline as {@code \n}, others as
     *     {@code \}{@code uXXXX}), cut after {@value #MAX_CHARS} characters with its length said:
     *     {@code ...(N chars)}
     */
    static String bounded(String message) {
        return BladeOptionsParser.shortened(message, MAX_CHARS);
    }
}
