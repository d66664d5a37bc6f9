package io.vesta.benchmarks;

import io.vesta.IdType;
import io.vesta.layout.IdLayout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Prints the JSON results of this module's benchmarks ({@code -rf json -rff results.json}) as a Markdown table
 * with a ratio column, followed by the performance targets, met or not:
 * <pre>
 * java -cp vesta-benchmarks/target/benchmarks.jar io.vesta.benchmarks.Report results.json [more.json ...]
 * </pre>
 * Ratios: a real-clock throughput over its layout's (or peer's) ceiling; a peer's ns/op over Vesta's
 * {@code genId} ns/ID (LOCK, MAX_PEAK, virtual clock); a {@code genIds1000} row's speed-up per ID over
 * {@code genId} with the same parameters.
 */
public final class Report {

    static final double TARGET_ONE_THREAD = 0.97;
    static final double TARGET_TWO_THREADS = 0.9;
    static final double TARGET_BATCH_SPEEDUP = 5;
    /** With a block of 8, real-clock IDs/s at least this many times Hutool's and CosId's in the same run. */
    static final double TARGET_BLOCK_OVER_PEERS = 2;
    /** CPU ns per ID with a block of 8 at most this many times one machine ID's. */
    static final double TARGET_BLOCK_COST = 1.10;

    private static final String REAL = "RealClockThroughputBenchmark";
    private static final String PEER_THROUGHPUT = "PeerThroughputBenchmark";
    private static final String PEER_THROUGHPUT_2 = "PeerThroughputTwoThreadsBenchmark";
    private static final String VIRTUAL = "VirtualClockCostBenchmark";
    private static final String PEER_COST = "PeerCostBenchmark";
    private static final List<String> ORDER = List.of(REAL, PEER_THROUGHPUT, PEER_THROUGHPUT_2, VIRTUAL, PEER_COST);

    private static final Map<String, Long> PEER_CEILINGS = Map.of(
            "hutool", Peers.HUTOOL_CEILING_PER_SECOND,
            "yitterDefaults", Peers.YITTER_DEFAULTS_CEILING_PER_SECOND,
            "yitterSeq12", Peers.YITTER_SEQ12_CEILING_PER_SECOND,
            "cosid", Peers.COSID_CEILING_PER_SECOND);

    /** One benchmark result: a method of a class, its parameters and threads, and its primary score. */
    record Result(String benchmarkClass, String method, String mode, int threads, Map<String, String> params,
            double score, double error, String unit) {

        String name() {
            return benchmarkClass + "." + method;
        }

        String param(String name) {
            return params.getOrDefault(name, "");
        }

        String paramsText() {
            if (params.isEmpty()) {
                return "";
            }
            // type first, then the rest in JMH's order
            StringBuilder text = new StringBuilder();
            params.entrySet().stream()
                    .sorted(Comparator.comparing(e -> e.getKey().equals("type") ? 0 : 1))
                    .forEach(e -> text.append(text.length() == 0 ? "" : " ").append(e.getKey()).append('=').append(e.getValue()));
            return text.toString();
        }
    }

    private final List<Result> results;

    Report(List<Result> results) {
        this.results = new ArrayList<>(results);
        this.results.sort(Comparator.comparing((Result r) -> order(r.benchmarkClass())));
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: java -cp benchmarks.jar io.vesta.benchmarks.Report results.json [more.json ...]");
            System.exit(2);
        }
        List<Result> results = new ArrayList<>();
        for (String file : args) {
            results.addAll(parse(Files.readString(Path.of(file))));
        }
        System.out.print(new Report(results).markdown());
    }

    /** Reads JMH's JSON result format: an array of runs, each with its benchmark, params and primary metric. */
    static List<Result> parse(String json) {
        List<Result> results = new ArrayList<>();
        for (Object element : (List<?>) Json.parse(json)) {
            Map<?, ?> run = (Map<?, ?>) element;
            String benchmark = (String) run.get("benchmark");
            int dot = benchmark.lastIndexOf('.');
            String benchmarkClass = benchmark.substring(benchmark.lastIndexOf('.', dot - 1) + 1, dot);
            Map<String, String> params = new LinkedHashMap<>();
            if (run.get("params") instanceof Map<?, ?> p) {
                p.forEach((k, v) -> params.put((String) k, String.valueOf(v)));
            }
            Map<?, ?> metric = (Map<?, ?>) run.get("primaryMetric");
            results.add(new Result(benchmarkClass, benchmark.substring(dot + 1), (String) run.get("mode"),
                    (int) number(run.get("threads")), params, number(metric.get("score")),
                    number(metric.get("scoreError")), (String) metric.get("scoreUnit")));
        }
        return results;
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("One operation is one ID (genIds1000 counts 1000 operations per call), except currentTimeMillis: one clock read.\n\n");
        out.append("| benchmark | params | threads | score | error (99.9%) | unit | ratio | ratio is |\n");
        out.append("|---|---|---:|---:|---:|---|---:|---|\n");
        for (Result r : results) {
            String[] ratio = ratio(r);
            out.append("| ").append(r.name())
                    .append(" | ").append(r.paramsText())
                    .append(" | ").append(r.threads())
                    .append(" | ").append(format(r.score()))
                    .append(" | ").append(Double.isNaN(r.error()) ? "" : "± " + format(r.error()))
                    .append(" | ").append(r.unit())
                    .append(" | ").append(ratio[0])
                    .append(" | ").append(ratio[1])
                    .append(" |\n");
        }
        out.append("\n### Targets\n\n");
        targets(out);
        return out.toString();
    }

    /** The ratio of a row, formatted, and what it is a ratio of. */
    private String[] ratio(Result r) {
        switch (r.benchmarkClass()) {
            case REAL -> {
                long ceiling = ceiling(r);
                return new String[] {String.format(Locale.ROOT, "%.4f", r.score() / ceiling),
                        "of the " + r.param("type") + " ceiling " + format(ceiling) + "/s" + (blockSize(r) == 1 ? ""
                                : " (block of " + blockSize(r) + ")")};
            }
            case PEER_THROUGHPUT, PEER_THROUGHPUT_2 -> {
                Long ceiling = PEER_CEILINGS.get(r.method());
                return ceiling == null ? new String[] {"", "no ceiling"}
                        : new String[] {String.format(Locale.ROOT, "%.4f", r.score() / ceiling),
                                "of its ceiling " + format(ceiling) + "/s"};
            }
            case VIRTUAL -> {
                if (r.method().equals("genIds1000")) {
                    Optional<Result> single = find(x -> x.benchmarkClass().equals(VIRTUAL) && x.method().equals("genId")
                            && x.params().equals(r.params()));
                    return single.map(s -> new String[] {String.format(Locale.ROOT, "%.1fx", s.score() / r.score()),
                            "genId ns/ID over this (batch speed-up)"}).orElse(new String[] {"", ""});
                }
                return new String[] {"", ""};
            }
            case PEER_COST -> {
                return vestaReference().map(v -> new String[] {String.format(Locale.ROOT, "%.1fx", r.score() / v.score()),
                        "over Vesta genId LOCK MAX_PEAK (virtual clock)"}).orElse(new String[] {"", ""});
            }
            default -> {
                return new String[] {"", ""};
            }
        }
    }

    private void targets(StringBuilder out) {
        ceilingTarget(out, "genId1Thread", "real clock, 1 thread", TARGET_ONE_THREAD);
        ceilingTarget(out, "genId2Threads", "real clock, 2 threads", TARGET_TWO_THREADS);

        List<Result> vesta = all(r -> r.benchmarkClass().equals(VIRTUAL) && r.method().equals("genId"));
        List<Result> peers = all(r -> r.benchmarkClass().equals(PEER_COST)
                && (r.method().equals("hutool") || r.method().startsWith("yitter")));
        if (vesta.isEmpty() || peers.isEmpty()) {
            out.append("- CPU cost per ID below Hutool's and Yitter's ns/op: not measured\n");
        } else {
            Result worst = vesta.stream().max(Comparator.comparingDouble(Result::score)).orElseThrow();
            Result fastestPeer = peers.stream().min(Comparator.comparingDouble(Result::score)).orElseThrow();
            boolean met = worst.score() < fastestPeer.score();
            out.append(String.format(Locale.ROOT,
                    "- CPU cost per ID below Hutool's and Yitter's ns/op: **%s** — Vesta genId on the virtual clock "
                            + "%.2f-%.2f ns/ID (worst: %s); peers %s; fastest peer %s %.1f ns/op\n",
                    met ? "met" : "NOT met",
                    vesta.stream().mapToDouble(Result::score).min().orElseThrow(), worst.score(), worst.paramsText(),
                    peers.stream().map(p -> p.method() + " " + format(p.score())).toList(),
                    fastestPeer.method(), fastestPeer.score()));
        }

        blockTargets(out);

        List<Result> batches = all(r -> r.benchmarkClass().equals(VIRTUAL) && r.method().equals("genIds1000"));
        double minSpeedup = Double.POSITIVE_INFINITY;
        String minAt = "";
        for (Result batch : batches) {
            Optional<Result> single = find(x -> x.benchmarkClass().equals(VIRTUAL) && x.method().equals("genId")
                    && x.params().equals(batch.params()));
            if (single.isPresent() && single.get().score() / batch.score() < minSpeedup) {
                minSpeedup = single.get().score() / batch.score();
                minAt = batch.paramsText() + ": " + String.format(Locale.ROOT, "%.2f vs %.2f ns/ID",
                        single.get().score(), batch.score());
            }
        }
        if (minAt.isEmpty()) {
            out.append("- genIds(1000) at least 5x cheaper per ID than genId(): not measured\n");
        } else {
            out.append(String.format(Locale.ROOT, "- genIds(1000) at least %.0fx cheaper per ID than genId(): **%s** — "
                            + "smallest speed-up %.1fx (%s)\n",
                    TARGET_BATCH_SPEEDUP, minSpeedup >= TARGET_BATCH_SPEEDUP ? "met" : "NOT met", minSpeedup, minAt));
        }
    }

    /**
     * Blocks of 8: real-clock IDs/s against Hutool's and CosId's (the peers at 1 thread beside genId1Thread, at 2
     * beside genId2Threads), and the CPU cost per ID against one machine ID's with the same type and sequencer.
     */
    private void blockTargets(StringBuilder out) {
        String[][] pairs = {{"genId1Thread", PEER_THROUGHPUT}, {"genId2Threads", PEER_THROUGHPUT_2}};
        for (String[] pair : pairs) {
            List<Result> blocks = all(r -> r.benchmarkClass().equals(REAL) && r.method().equals(pair[0]) && blockSize(r) == 8);
            List<Result> peers = all(r -> r.benchmarkClass().equals(pair[1])
                    && (r.method().equals("hutool") || r.method().equals("cosid")));
            String what = String.format(Locale.ROOT, "block of 8, %s, at least %.0fx Hutool's and CosId's IDs/s",
                    pair[0], TARGET_BLOCK_OVER_PEERS);
            if (blocks.isEmpty() || peers.isEmpty()) {
                out.append("- ").append(what).append(": not measured\n");
                continue;
            }
            Result slowest = blocks.stream().min(Comparator.comparingDouble(Result::score)).orElseThrow();
            Result fastestPeer = peers.stream().max(Comparator.comparingDouble(Result::score)).orElseThrow();
            double ratio = slowest.score() / fastestPeer.score();
            out.append(String.format(Locale.ROOT, "- %s: **%s** — slowest block of 8 %s/s (%s) is %.2fx the fastest peer"
                            + " %s %s/s\n", what, ratio >= TARGET_BLOCK_OVER_PEERS ? "met" : "NOT met", format(slowest.score()),
                    slowest.paramsText(), ratio, fastestPeer.method(), format(fastestPeer.score())));
        }
        List<Result> blockCosts = all(r -> r.benchmarkClass().equals(VIRTUAL) && r.method().equals("genId") && blockSize(r) == 8);
        double worst = 0;
        String worstAt = "";
        for (Result block : blockCosts) {
            Optional<Result> single = find(x -> x.benchmarkClass().equals(VIRTUAL) && x.method().equals("genId")
                    && blockSize(x) == 1 && x.param("type").equals(block.param("type"))
                    && x.param("sequencer").equals(block.param("sequencer")));
            if (single.isPresent() && block.score() / single.get().score() > worst) {
                worst = block.score() / single.get().score();
                worstAt = block.param("type") + " " + block.param("sequencer") + String.format(Locale.ROOT,
                        ": %.2f vs %.2f ns/ID", block.score(), single.get().score());
            }
        }
        if (worstAt.isEmpty()) {
            out.append("- CPU cost per ID with a block of 8 at most 1.10x one machine ID's: not measured\n");
        } else {
            out.append(String.format(Locale.ROOT, "- CPU cost per ID with a block of 8 at most %.2fx one machine ID's: **%s**"
                            + " — largest ratio %.3fx (%s)\n", TARGET_BLOCK_COST, worst <= TARGET_BLOCK_COST ? "met" : "NOT met",
                    worst, worstAt));
        }
    }

    /** The row's block size; 1 for results of runs before blocks existed. */
    private static int blockSize(Result r) {
        String value = r.params().get("blockSize");
        return value == null ? 1 : Integer.parseInt(value);
    }

    private void ceilingTarget(StringBuilder out, String method, String what, double target) {
        List<Result> rows = all(r -> r.benchmarkClass().equals(REAL) && r.method().equals(method));
        if (rows.isEmpty()) {
            out.append("- ").append(what).append(" >= ").append(target).append(" of the ceiling: not measured\n");
            return;
        }
        List<String> missed = new ArrayList<>();
        Result lowest = rows.get(0);
        for (Result r : rows) {
            double ratio = r.score() / ceiling(r);
            if (ratio < target) {
                missed.add(r.paramsText() + String.format(Locale.ROOT, " %.4f", ratio));
            }
            if (ratio < lowest.score() / ceiling(lowest)) {
                lowest = r;
            }
        }
        out.append(String.format(Locale.ROOT, "- %s >= %.2f of the ceiling: **%s** — lowest %.4f (%s)%s\n",
                what, target, missed.isEmpty() ? "met" : "NOT met", lowest.score() / ceiling(lowest),
                lowest.paramsText(), missed.isEmpty() ? "" : "; below target: " + String.join(", ", missed)));
    }

    private Optional<Result> vestaReference() {
        return find(r -> r.benchmarkClass().equals(VIRTUAL) && r.method().equals("genId")
                && r.param("type").equals("MAX_PEAK") && r.param("sequencer").equals("LOCK") && blockSize(r) == 1);
    }

    private Optional<Result> find(Predicate<Result> test) {
        return results.stream().filter(test).findFirst();
    }

    private List<Result> all(Predicate<Result> test) {
        return results.stream().filter(test).toList();
    }

    private static long ceiling(Result r) {
        return IdLayout.of(IdType.valueOf(r.param("type"))).ceilingPerSecond() * blockSize(r);
    }

    private static int order(String benchmarkClass) {
        int i = ORDER.indexOf(benchmarkClass);
        return i < 0 ? ORDER.size() : i;
    }

    private static String format(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        return Math.abs(value) >= 1000 ? String.format(Locale.ROOT, "%,.0f", value) : String.format(Locale.ROOT, "%.3f", value);
    }

    /** JMH writes NaN as the string "NaN". */
    private static double number(Object value) {
        return value instanceof Number n ? n.doubleValue() : Double.parseDouble(String.valueOf(value));
    }

    /** Just enough JSON for JMH's result file: objects, arrays, strings, numbers, true, false, null. */
    static final class Json {

        private final String text;
        private int at;

        private Json(String text) {
            this.text = text;
        }

        static Object parse(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.skipSpace();
            if (json.at != text.length()) {
                throw json.error("end of input");
            }
            return value;
        }

        private Object value() {
            skipSpace();
            if (at >= text.length()) {
                throw error("a value");
            }
            char c = text.charAt(at);
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    return number();
            }
        }

        private Map<String, Object> object() {
            Map<String, Object> object = new LinkedHashMap<>();
            at++;
            skipSpace();
            if (peek() == '}') {
                at++;
                return object;
            }
            for (;;) {
                skipSpace();
                String key = string();
                skipSpace();
                expect(':');
                object.put(key, value());
                skipSpace();
                char c = next();
                if (c == '}') {
                    return object;
                }
                if (c != ',') {
                    throw error("',' or '}'");
                }
            }
        }

        private List<Object> array() {
            List<Object> array = new ArrayList<>();
            at++;
            skipSpace();
            if (peek() == ']') {
                at++;
                return array;
            }
            for (;;) {
                array.add(value());
                skipSpace();
                char c = next();
                if (c == ']') {
                    return array;
                }
                if (c != ',') {
                    throw error("',' or ']'");
                }
            }
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            for (;;) {
                char c = next();
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char escaped = next();
                switch (escaped) {
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (at + 4 > text.length()) {
                            throw error("four hex digits");
                        }
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> out.append(escaped); // '"', '\\', '/'
                }
            }
        }

        private Double number() {
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            if (start == at) {
                throw error("a value");
            }
            return Double.valueOf(text.substring(start, at));
        }

        private Object literal(String word, Object value) {
            if (!text.startsWith(word, at)) {
                throw error(word);
            }
            at += word.length();
            return value;
        }

        private void expect(char c) {
            if (next() != c) {
                throw error("'" + c + "'");
            }
        }

        private char peek() {
            if (at >= text.length()) {
                throw error("more input");
            }
            return text.charAt(at);
        }

        private char next() {
            char c = peek();
            at++;
            return c;
        }

        private void skipSpace() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private IllegalArgumentException error(String expected) {
            return new IllegalArgumentException("Not JMH JSON: expected " + expected + " at offset " + at);
        }
    }
}
