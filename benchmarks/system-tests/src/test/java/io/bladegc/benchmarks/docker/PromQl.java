package io.bladegc.benchmarks.docker;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression reads. Label matchers ({@code {...}}), range and subquery selectors
 * ({@code [...]}), string literals, grouping clauses ({@code by (...)}, {@code without (...)}, {@code on (...)},
 * {@code ignoring (...)}, {@code group_left (...)}, {@code group_right (...)}) and Grafana variables
 * ({@code $__rate_interval}) are removed; what remains is a metric name unless it is followed by {@code (} (a function
 * or an aggregation) or is a PromQL keyword. Stateless.
 */
final class PromQl {
    private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
    private static final Pattern BRACES = Pattern.compile("\\{[^}]*}|\\[[^]]*]");
    private static final Pattern GROUPING =
        Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern VARIABLES = Pattern.compile("\\$\\{?[A-Za-z_][A-Za-z0-9_]*}?");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_:][A-Za-z0-9_:]*");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without",
        "on", "ignoring", "group_left", "group_right", "inf", "nan", "e");

    private PromQl() {
    }

    /** @return the metric names {@code expr} reads, in order of first appearance */
    static Set<String> metricNames(String expr) {
        String s = STRINGS.matcher(expr).replaceAll(" ");
        s = BRACES.matcher(s).replaceAll(" ");
        s = GROUPING.matcher(s).replaceAll(" ");
        s = VARIABLES.matcher(s).replaceAll(" ");
        Set<String> out = new LinkedHashSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String name = m.group();
            int after = m.end();
            while (after < s.length() && Character.isWhitespace(s.charAt(after))) {
                after++;
            }
            boolean call = after < s.length() && s.charAt(after) == '(';
            boolean partOfNumber = m.start() > 0 && Character.isDigit(s.charAt(m.start() - 1));
            if (!call && !partOfNumber && !KEYWORDS.contains(name.toLowerCase(Locale.ROOT))) {
                out.add(name);
            }
        }
        return out;
    }
}
