package io.bladegc.benchmarks.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A plain-text table of columns side by side: the row labels on the left, then one right-aligned column per entry,
 * in the map's order; the rows are the union of every column's labels, in order of first appearance. Used for a
 * {@link LoadResult}'s own print-out and for the demos' comparisons. Stateless.
 */
public final class SideBySideTable {
    private SideBySideTable() {
    }

    /**
     * @param columns column heading to rows (label to formatted value, as from {@link LoadResult#rows()}); a row
     *                missing in a column shows as "-"
     * @return the table: a heading line, a rule, one line per row, each ending in a newline
     */
    public static String format(Map<String, ? extends Map<String, String>> columns) {
        List<String> labels = new ArrayList<>();
        for (Map<String, String> c : columns.values()) {
            for (String label : c.keySet()) {
                if (!labels.contains(label)) {
                    labels.add(label);
                }
            }
        }
        int labelWidth = 0;
        for (String l : labels) {
            labelWidth = Math.max(labelWidth, l.length());
        }
        List<Integer> widths = new ArrayList<>();
        for (Map.Entry<String, ? extends Map<String, String>> c : columns.entrySet()) {
            int w = c.getKey().length();
            for (String v : c.getValue().values()) {
                w = Math.max(w, v.length());
            }
            widths.add(w);
        }
        StringBuilder sb = new StringBuilder();
        sb.append(pad("", labelWidth, false));
        int i = 0;
        for (String heading : columns.keySet()) {
            sb.append(" | ").append(pad(heading, widths.get(i++), true));
        }
        sb.append('\n').append("-".repeat(sb.length() - 1)).append('\n');
        for (String label : labels) {
            sb.append(pad(label, labelWidth, false));
            i = 0;
            for (Map<String, String> c : columns.values()) {
                sb.append(" | ").append(pad(c.getOrDefault(label, "-"), widths.get(i++), true));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static String pad(String s, int width, boolean right) {
        if (s.length() >= width) {
            return s;
        }
        String fill = " ".repeat(width - s.length());
        return right ? fill + s : s + fill;
    }
}
