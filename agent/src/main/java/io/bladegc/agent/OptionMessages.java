package io.bladegc.agent;

import java.util.ArrayList;
import java.util.List;

/**
 * What the agent prints about bad options, bounded whatever the options hold: each message at most
 * {@value #MAX_CHARS} characters (a longer value is cut, with its length said), control characters written as
 * escapes (a newline in the arguments is not echoed raw), at most {@value #MAX_LINES} lines, then one line that counts
 * the rest. Stateless.
 */
final class OptionMessages {
    static final int MAX_CHARS = 300;
    static final int MAX_LINES = 5;

    private OptionMessages() {
    }

    /**
     * @param errors the parser's messages, as many and as long as the options made them
     * @param suffix what ends each line (what happens now)
     * @return the lines to print, each with the agent's prefix
     */
    static List<String> lines(List<String> errors, String suffix) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < errors.size() && i < MAX_LINES; i++) {
            out.add(BladeAgent.PREFIX + bounded(errors.get(i)) + suffix);
        }
        if (errors.size() > MAX_LINES) {
            out.add(BladeAgent.PREFIX + "and " + (errors.size() - MAX_LINES) + " more option errors" + suffix);
        }
        return out;
    }

    /** @return {@code message} with control characters escaped, cut to {@value #MAX_CHARS} characters */
    static String bounded(String message) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        for (; i < message.length() && sb.length() < MAX_CHARS; i++) {
            char c = message.charAt(i);
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : c);
            }
        }
        if (i < message.length()) {
            sb.append("... (").append(message.length()).append(" characters in all)");
        }
        return sb.toString();
    }
}
