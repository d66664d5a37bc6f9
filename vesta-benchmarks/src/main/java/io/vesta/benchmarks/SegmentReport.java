package io.vesta.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Prints the results of {@link SegmentBenchmark} and {@link SequenceBenchmark} as a Markdown table, throughput
 * (JMH JSON) beside the database round trips of the same runs ({@code segment-db.csv}), followed by the
 * targets of segment mode, met or not:
 * <pre>
 * java -cp vesta-benchmarks/target/benchmarks.jar io.vesta.benchmarks.SegmentReport segment.json segment-db.csv
 * </pre>
 */
public final class SegmentReport {

    static final int DEFAULT_MAX_STEP = io.vesta.segment.SegmentIdService.DEFAULT_MAX_STEP;

    /** One run: its throughput and what it cost the database during the measurement iterations. */
    record Row(String generator, int threads, int step, double idsPerSecond, double error, long ids, long roundTrips,
            long callerRoundTrips, long callerNanos, long callerWaits) {

        double nsPerIdPerThread() {
            return threads * 1e9 / idsPerSecond;
        }

        double perMillion(long count) {
            return ids == 0 ? Double.NaN : count * 1e6 / ids;
        }
    }

    private final List<Row> rows;

    SegmentReport(List<Row> rows) {
        this.rows = new ArrayList<>(rows);
        this.rows.sort(Comparator.comparing(Row::generator).thenComparing(Row::step, Comparator.reverseOrder())
                .thenComparing(Row::threads));
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java -cp benchmarks.jar io.vesta.benchmarks.SegmentReport results.json segment-db.csv");
            System.exit(2);
        }
        System.out.print(new SegmentReport(join(Report.parse(Files.readString(Path.of(args[0]))),
                Files.readAllLines(Path.of(args[1])))).markdown());
    }

    /** Matches each JMH result to the round-trip line of the same benchmark, thread count and step. */
    static List<Row> join(List<Report.Result> results, List<String> csv) {
        List<Row> rows = new ArrayList<>();
        for (Report.Result result : results) {
            if (!result.benchmarkClass().equals("SegmentBenchmark") && !result.benchmarkClass().equals("SequenceBenchmark")) {
                continue;
            }
            String name = result.benchmarkClass() + "." + result.method();
            int step = result.benchmarkClass().equals("SequenceBenchmark") ? SequenceBenchmark.ALLOCATION_SIZE
                    : Integer.parseInt(result.param("maxStep"));
            String[] db = null;
            for (String line : csv) {
                String[] fields = line.split(",");
                if (fields[0].equals(name) && fields[1].equals(Integer.toString(result.threads()))
                        && fields[2].equals(Integer.toString(step))) {
                    db = fields; // the last line wins: a rerun appends
                }
            }
            String generator = result.method().replaceAll("\\d+Threads?$", "");
            rows.add(db == null
                    ? new Row(generator, result.threads(), step, result.score(), result.error(), 0, 0, 0, 0, 0)
                    : new Row(generator, result.threads(), step, result.score(), result.error(), Long.parseLong(db[3]),
                            Long.parseLong(db[4]), Long.parseLong(db[5]), Long.parseLong(db[6]), Long.parseLong(db[7])));
        }
        return rows;
    }

    String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("| generator | step | threads | IDs/s | error (99.9%) | ns/ID per thread | DB round trips per million IDs "
                + "| of them in callers | callers' time in DB calls per second | calls that waited for the DB |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Row r : rows) {
            double seconds = r.idsPerSecond() == 0 ? Double.NaN : r.ids() / r.idsPerSecond();
            out.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | ± %s | %.1f | %s | %s | %s | %s |\n",
                    r.generator(), step(r), r.threads(), count(r.idsPerSecond()), count(r.error()), r.nsPerIdPerThread(),
                    perMillion(r, r.roundTrips()), perMillion(r, r.callerRoundTrips()),
                    r.callerNanos() == 0 ? "0" : String.format(Locale.ROOT, "%.1f ms", r.callerNanos() / 1e6 / seconds),
                    r.ids() == 0 ? "not measured" : count(r.callerWaits())));
        }
        out.append("\n### Targets\n\n");
        List<Integer> steps = rows.stream().filter(r -> r.generator().equals("vesta")).map(Row::step).distinct().sorted().toList();
        for (int step : steps) {
            for (int threads : new int[] {1, 2}) {
                Optional<Row> vesta = find("vesta", threads, step);
                for (String peer : List.of("cosid", "cosidByName")) {
                    Optional<Row> cosid = find(peer, threads, step);
                    if (vesta.isEmpty() || cosid.isEmpty()) {
                        continue;
                    }
                    boolean met = vesta.get().nsPerIdPerThread() <= cosid.get().nsPerIdPerThread();
                    out.append(String.format(Locale.ROOT, "- per-ID cost no higher than CosId's (%s), %d thread%s, step %s: "
                                    + "**%s** — Vesta %.1f ns/ID, CosId %.1f ns/ID (per thread; see the error column)\n",
                            peer.equals("cosid") ? "SegmentChainId held" : "SegmentChainId found by tag name", threads,
                            threads == 1 ? "" : "s", count(step), met ? "met" : "NOT met", vesta.get().nsPerIdPerThread(),
                            cosid.get().nsPerIdPerThread()));
                }
            }
        }
        for (int step : steps) {
            List<Row> steady = rows.stream().filter(r -> r.generator().equals("vesta") && r.step() == step).toList();
            long waits = steady.stream().mapToLong(Row::callerWaits).sum();
            long callerTrips = steady.stream().mapToLong(Row::callerRoundTrips).sum();
            long ids = steady.stream().mapToLong(Row::ids).sum();
            out.append(String.format(Locale.ROOT, "- no caller waiting on the database in steady state, Vesta max step %s%s: "
                            + "**%s** — %d calls waited for a segment and callers made %d round trips, in %s IDs of the "
                            + "measurement iterations (1 and 2 threads)\n", count(step),
                    step == DEFAULT_MAX_STEP ? " (the default)" : "", waits == 0 && callerTrips == 0 ? "met" : "NOT met",
                    waits, callerTrips, count(ids)));
        }
        return out.toString();
    }

    private Optional<Row> find(String generator, int threads, int step) {
        return rows.stream().filter(r -> r.generator().equals(generator) && r.threads() == threads && r.step() == step)
                .findFirst();
    }

    private static String step(Row r) {
        return switch (r.generator()) {
            case "vesta" -> "1000 .. " + count(r.step());
            case "hibernate" -> "allocationSize " + r.step();
            default -> count(r.step());
        };
    }

    private static String perMillion(Row r, long count) {
        return r.ids() == 0 ? "not measured" : String.format(Locale.ROOT, "%.2f", r.perMillion(count));
    }

    private static String count(double value) {
        return String.format(Locale.ROOT, "%,.0f", value);
    }
}
