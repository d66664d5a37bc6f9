package io.vesta.server;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric and label names a PromQL expression (or a Grafana variable's {@code label_values} query) reads, so that a
 * test can hold them against what the server exports. Not a parser: it removes what is not a name in PromQL's order of
 * things (Grafana variables, strings, ranges, numbers and durations), collects label names where only labels stand
 * (inside a selector's braces, in {@code by}/{@code without}/{@code on}/{@code ignoring}/{@code group_left}/{@code
 * group_right} lists), and takes every other identifier that is neither a keyword nor called as a function.
 */
record PromQlNames(Set<String> metrics, Set<String> labels) {

    private static final Pattern GRAFANA_VARIABLE = Pattern.compile("\\$(\\{[^}]*}|\\w+)");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern SELECTOR = Pattern.compile("\\{([^}]*)}");
    private static final Pattern MATCHER_LABEL = Pattern.compile("([a-zA-Z_]\\w*)\\s*(?:=~|!~|!=|=)");
    private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*]");
    private static final Pattern LABEL_LIST = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
    private static final Pattern NUMBER_OR_DURATION = Pattern.compile("(?<![\\w:])\\d[\\w.]*");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][\\w:]*");
    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\((?:(.*),)?\\s*(\\w+)\\s*\\)\\s*$");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "atan2", "inf", "nan",
            "by", "without", "on", "ignoring", "group_left", "group_right");

    /** The names an alerting rule's or a panel's expression reads. */
    static PromQlNames of(String promql) {
        Set<String> labels = new TreeSet<>();
        String rest = STRING.matcher(GRAFANA_VARIABLE.matcher(promql).replaceAll("1")).replaceAll("\"\"");
        rest = collect(SELECTOR, rest, inside -> labels.addAll(all(MATCHER_LABEL, inside)));
        rest = RANGE.matcher(rest).replaceAll(" ");
        rest = collect(LABEL_LIST, rest, inside -> labels.addAll(all(IDENTIFIER, inside)));
        rest = NUMBER_OR_DURATION.matcher(rest).replaceAll(" ");
        Set<String> metrics = new TreeSet<>();
        Matcher identifier = IDENTIFIER.matcher(rest);
        while (identifier.find()) {
            String name = identifier.group();
            if (!KEYWORDS.contains(name.toLowerCase()) && !calledAsFunction(rest, identifier.end())) {
                metrics.add(name);
            }
        }
        return new PromQlNames(metrics, labels);
    }

    /** The names of a Grafana variable query: {@code label_values(metric{...}, label)} or {@code label_values(label)}. */
    static PromQlNames ofVariableQuery(String query) {
        Matcher labelValues = LABEL_VALUES.matcher(query);
        if (!labelValues.matches()) {
            return of(query);
        }
        PromQlNames selector = labelValues.group(1) == null ? new PromQlNames(Set.of(), Set.of()) : of(labelValues.group(1));
        Set<String> labels = new TreeSet<>(selector.labels());
        labels.add(labelValues.group(2));
        return new PromQlNames(selector.metrics(), labels);
    }

    private static boolean calledAsFunction(String text, int end) {
        int next = end;
        while (next < text.length() && Character.isWhitespace(text.charAt(next))) {
            next++;
        }
        return next < text.length() && text.charAt(next) == '(';
    }

    private static String collect(Pattern pattern, String text, java.util.function.Consumer<String> inside) {
        Matcher matcher = pattern.matcher(text);
        StringBuilder rest = new StringBuilder();
        while (matcher.find()) {
            inside.accept(matcher.group(1));
            matcher.appendReplacement(rest, " ");
        }
        return matcher.appendTail(rest).toString();
    }

    private static List<String> all(Pattern pattern, String text) {
        Matcher matcher = pattern.matcher(text);
        List<String> found = new java.util.ArrayList<>();
        while (matcher.find()) {
            found.add(matcher.groupCount() > 0 ? matcher.group(1) : matcher.group());
        }
        return found;
    }
}
