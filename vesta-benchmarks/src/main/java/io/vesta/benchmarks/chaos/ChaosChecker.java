package io.vesta.benchmarks.chaos;

import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads every node's {@link ChaosLog} file once all nodes have stopped and says whether any ID repeats and
 * whether any holder issued after its lease had ended. All processes ran on one host and read one clock, so an
 * ID's time field compared with another process's notBefore is an exact comparison, not an estimate.
 *
 * <p>"Late": the holders of one machine ID are put in the order they acquired it; an ID of a holder whose time
 * unit starts at or after the {@code notBefore} of the next holder was issued after the point from which the
 * next holder was entitled to issue, that is, after the first holder's lease had ended. "Early" is the mirror
 * image, an ID before its own holder's {@code notBefore}. Either is an overlap whether or not a duplicate
 * happened to come of it.
 */
final class ChaosChecker {

    private final IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);
    private final boolean orderByGeneration;
    private final long fallbackFrom;

    /** @param orderByGeneration the table's generation is the exact order of a row's holders; use it where known */
    ChaosChecker(boolean orderByGeneration) {
        this(orderByGeneration, Long.MAX_VALUE);
    }

    /**
     * @param fallbackFrom the machine IDs from here up are the nodes' fallbacks ({@code --fallback}): a span under one
     *     is counted as a fallback spell; {@code Long.MAX_VALUE} without fallbacks
     */
    ChaosChecker(boolean orderByGeneration, long fallbackFrom) {
        this.orderByGeneration = orderByGeneration;
        this.fallbackFrom = fallbackFrom;
    }

    /** One process's span of IDs under one acquisition. */
    static final class Holder {
        final Path file;
        final ChaosLog.Acquisition acquisition;
        final int from;
        int to;
        long late;
        long early;
        long foreign;
        long lastWall = Long.MIN_VALUE;
        long firstWall = Long.MAX_VALUE;
        Holder next;
        Holder previous;
        Holder boundBy;

        Holder(Path file, ChaosLog.Acquisition acquisition, int from) {
            this.file = file;
            this.acquisition = acquisition;
            this.from = from;
            this.to = from;
        }

        String who() {
            ChaosLog.Acquisition a = acquisition;
            return "slot " + a.slot() + (a.ownerSlot() != a.slot() ? " (owner of slot " + a.ownerSlot() + ")" : "")
                    + " run " + a.run() + " attempt " + a.attempt();
        }
    }

    record Result(long idsChecked, int files, List<Holder> holders, long acquisitions, long takeovers, long ownBack,
            long fresh, long refusalsRangeFull, long refusalsUnavailable, long refusalsOther, long sameOwnerRefusals,
            long lossesExpired, long lossesRevoked, long lossesClock, long lossesOther, long resumed, long cleanEnds,
            long duplicates, long late, long early, long foreign, long orphans, long generationUnknown,
            long ambiguousPairs, long lateSameOwner, long lateOtherOwner, long lateSecondProcess, Fallbacks fallbacks,
            Outages outages, List<String> findings) {

        boolean passed() {
            return duplicates == 0 && late == 0 && early == 0 && foreign == 0 && orphans == 0 && outages.ids() == 0;
        }
    }

    /**
     * The store's outages the harness recorded ({@link #OUTAGES}): windows in which no lease can have been renewed, so
     * no leased machine ID may be issued from a lease after the window's start on; {@code ids} were, nevertheless.
     */
    record Outages(int windows, long millis, long ids) {
    }

    /**
     * One line per window, {@code FROM TO} in Unix ms: from FROM to TO no lease may be in force (the store could
     * renew none since FROM less a lease), so no ID of a leased machine ID may carry a time in between.
     */
    static final String OUTAGES = "outages.txt";

    /**
     * The spans under fallback machine IDs: how many (and how many a service started on), how many times a service on
     * its fallback went back to a leased machine ID, and the IDs issued under fallbacks.
     */
    record Fallbacks(long spells, long atStart, long backToLease, long ids) {
    }

    Result check(Path dir, Set<Integer> twinSlots) throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".ids")).sorted().toList();
        }
        long capacity = 0;
        for (Path file : files) {
            capacity += Files.size(file) / 8;
        }
        if (capacity > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("too many IDs to check in memory: " + capacity + "; lower --rate or --seconds");
        }
        long[] ids = new long[(int) capacity];
        List<Holder> holders = new ArrayList<>();
        long[] counters = new long[16];
        int[] count = { 0 };
        long[] orphans = { 0 };
        for (Path file : files) {
            Holder[] current = { null };
            ChaosLog.read(file, new ChaosLog.Visitor() {
                @Override
                public void id(long id) {
                    if (current[0] == null) {
                        orphans[0]++;
                    } else {
                        current[0].to = count[0] + 1;
                    }
                    ids[count[0]++] = id;
                }

                @Override
                public void record(long tag, long[] fields) {
                    if (tag == ChaosLog.ACQUIRE) {
                        current[0] = new Holder(file, ChaosLog.Acquisition.of(fields), count[0]);
                        holders.add(current[0]);
                    } else if (tag == ChaosLog.REFUSAL) {
                        counters[(int) fields[2]]++;
                        if (twinSlots.contains((int) fields[0])) {
                            counters[4]++;
                        }
                    } else if (tag == ChaosLog.LOSS) {
                        counters[8 + (int) fields[2]]++;
                        current[0] = null;
                    } else if (tag == ChaosLog.RESUME) {
                        counters[13]++;
                    } else if (tag == ChaosLog.END) {
                        counters[15]++;
                        current[0] = null;
                    }
                }
            });
        }
        int total = count[0];

        // Order each machine ID's holders. Acquire-return time is exact but for a process paused between its
        // commit and that reading; where the table's generation is known it replaces time, in place.
        Map<Long, List<Holder>> byMachine = new TreeMap<>();
        for (Holder holder : holders) {
            byMachine.computeIfAbsent(holder.acquisition.machineId(), k -> new ArrayList<>()).add(holder);
        }
        long generationUnknown = 0;
        long takeovers = 0;
        long ownBack = 0;
        long fresh = 0;
        for (List<Holder> group : byMachine.values()) {
            group.sort(Comparator.comparingLong((Holder h) -> h.acquisition.acquiredAt())
                    .thenComparingLong(h -> h.acquisition.recordedAt()));
            if (orderByGeneration) {
                List<Integer> positions = new ArrayList<>();
                List<Holder> known = new ArrayList<>();
                for (int i = 0; i < group.size(); i++) {
                    if (group.get(i).acquisition.generation() >= 0) {
                        positions.add(i);
                        known.add(group.get(i));
                    } else {
                        generationUnknown++;
                    }
                }
                known.sort(Comparator.comparingLong(h -> h.acquisition.generation()));
                for (int i = 0; i < positions.size(); i++) {
                    group.set(positions.get(i), known.get(i));
                }
            }
            for (int i = 0; i < group.size(); i++) {
                Holder holder = group.get(i);
                if (i > 0) {
                    holder.previous = group.get(i - 1);
                    if (holder.previous.acquisition.ownerSlot() == holder.acquisition.ownerSlot()) {
                        ownBack++;
                    } else {
                        takeovers++;
                    }
                } else {
                    fresh++;
                }
                holder.next = i + 1 < group.size() ? group.get(i + 1) : null;
            }
        }

        long late = 0;
        long early = 0;
        long foreign = 0;
        long ambiguous = 0;
        long lateSameOwner = 0;
        long lateSecondProcess = 0;
        long lateOtherOwner = 0;
        List<String> findings = new ArrayList<>();
        for (Holder holder : holders) {
            // The bound is the earliest start of any holder that certainly acquired this ID after this one: the
            // next one in the order, but an ambiguous neighbour (a process paused inside acquire) cannot make it.
            long bound = Long.MAX_VALUE;
            Holder boundBy = null;
            for (Holder other : byMachine.get(holder.acquisition.machineId())) {
                if (other == holder) {
                    continue;
                }
                int order = order(holder, other);
                if (order == 0) {
                    ambiguous++;
                } else if (order > 0) {
                    ChaosLog.Acquisition next = other.acquisition;
                    // A later holder without a mark may issue from the moment it acquired.
                    long start = next.notBefore() != ChaosLog.NONE ? next.notBefore() : next.acquiredAt();
                    if (start < bound) {
                        bound = start;
                        boundBy = other;
                    }
                }
            }
            holder.boundBy = boundBy;
            long own = holder.acquisition.notBefore();
            long machine = holder.acquisition.machineId();
            for (int i = holder.from; i < holder.to; i++) {
                long id = ids[i];
                long wall = wallOf(id);
                if ((id & IdLayout.MAX_MACHINE) != machine) {
                    holder.foreign++;
                }
                if (wall >= bound) {
                    holder.late++;
                }
                if (own != ChaosLog.NONE && wall < own) {
                    holder.early++;
                }
                holder.firstWall = Math.min(holder.firstWall, wall);
                holder.lastWall = Math.max(holder.lastWall, wall);
            }
            late += holder.late;
            if (holder.late > 0) {
                if (boundBy.acquisition.slot() >= LeaseChaosHarness.TWIN_SLOTS
                        || holder.acquisition.slot() >= LeaseChaosHarness.TWIN_SLOTS) {
                    lateSecondProcess += holder.late;
                } else if (boundBy.acquisition.ownerSlot() == holder.acquisition.ownerSlot()) {
                    lateSameOwner += holder.late;
                } else {
                    lateOtherOwner += holder.late;
                }
            }
            early += holder.early;
            foreign += holder.foreign;
            if (holder.late > 0 && findings.size() < 8) {
                ChaosLog.Acquisition next = holder.boundBy.acquisition;
                findings.add(String.format(Locale.ROOT, "late: machine %d, %s issued %,d IDs up to %s, %d ms past"
                                + " the notBefore %s of the next holder, %s (acquired %s)",
                        machine, holder.who(), holder.late, Instant.ofEpochMilli(holder.lastWall), holder.lastWall - bound,
                        next.notBefore() == ChaosLog.NONE ? "(none)" : Instant.ofEpochMilli(next.notBefore()),
                        holder.boundBy.who(), Instant.ofEpochMilli(next.acquiredAt())));
            }
            if (holder.early > 0 && findings.size() < 8) {
                findings.add(String.format(Locale.ROOT, "early: machine %d, %s issued %,d IDs before its own notBefore %s",
                        machine, holder.who(), holder.early, Instant.ofEpochMilli(own)));
            }
            if (holder.foreign > 0 && findings.size() < 8) {
                findings.add("foreign: " + holder.who() + " wrote " + holder.foreign + " IDs of another machine ID than " + machine);
            }
        }

        Fallbacks fallbacks = fallbacks(holders);
        Outages outages = outages(dir, holders, ids, findings);
        Arrays.parallelSort(ids, 0, total);
        long duplicates = 0;
        Set<Long> samples = new HashSet<>();
        for (int i = 1; i < total; i++) {
            if (ids[i] == ids[i - 1]) {
                duplicates++;
                if (samples.size() < 5) {
                    samples.add(ids[i]);
                }
            }
        }
        if (!samples.isEmpty()) {
            findings.addAll(whereFrom(files, samples));
        }
        return new Result(total, files.size(), holders, holders.size(), takeovers, ownBack, fresh,
                counters[(int) ChaosLog.REFUSED_RANGE_FULL], counters[(int) ChaosLog.REFUSED_UNAVAILABLE],
                counters[(int) ChaosLog.REFUSED_OTHER], counters[4],
                counters[8 + (int) ChaosLog.LOSS_EXPIRED], counters[8 + (int) ChaosLog.LOSS_REVOKED],
                counters[8 + (int) ChaosLog.LOSS_CLOCK], counters[8 + (int) ChaosLog.LOSS_OTHER], counters[13], counters[15],
                duplicates, late, early, foreign, orphans[0], generationUnknown, ambiguous / 2, lateSameOwner,
                lateOtherOwner, lateSecondProcess, fallbacks, outages, findings);
    }

    /** Leased IDs (not under a fallback) whose time lies in one of the outage windows of {@link #OUTAGES}, if any. */
    private Outages outages(Path dir, List<Holder> holders, long[] ids, List<String> findings) throws IOException {
        Path file = dir.resolve(OUTAGES);
        if (!Files.exists(file)) {
            return new Outages(0, 0, 0);
        }
        List<long[]> windows = new ArrayList<>();
        long millis = 0;
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) {
                String[] parts = line.trim().split("\\s+");
                long[] window = { Long.parseLong(parts[0]), Long.parseLong(parts[1]) };
                windows.add(window);
                millis += Math.max(0, window[1] - window[0]);
            }
        }
        long inside = 0;
        for (Holder holder : holders) {
            if (holder.acquisition.machineId() >= fallbackFrom) {
                continue;
            }
            long count = 0;
            long last = Long.MIN_VALUE;
            for (int i = holder.from; i < holder.to; i++) {
                long wall = wallOf(ids[i]);
                for (long[] window : windows) {
                    if (wall >= window[0] && wall < window[1]) {
                        count++;
                        last = Math.max(last, wall);
                    }
                }
            }
            inside += count;
            if (count > 0 && findings.size() < 8) {
                findings.add(String.format(Locale.ROOT, "in an outage: machine %d, %s issued %,d IDs while the store could"
                        + " renew no lease, the last at %s", holder.acquisition.machineId(), holder.who(), count,
                        Instant.ofEpochMilli(last)));
            }
        }
        return new Outages(windows.size(), millis, inside);
    }

    private long wallOf(long id) {
        IdLayout layout = IdLayout.of(id);
        long time = (id >>> layout.timeShift()) & layout.maxTime();
        return codec.epochMillis() + time * layout.unitMillis();
    }

    /** Holders are in file order, and a service's spans one after another under one attempt of one file. */
    private Fallbacks fallbacks(List<Holder> holders) {
        long spells = 0;
        long atStart = 0;
        long back = 0;
        long ids = 0;
        Holder previous = null;
        for (Holder holder : holders) {
            boolean sameService = previous != null && previous.file.equals(holder.file)
                    && previous.acquisition.attempt() == holder.acquisition.attempt();
            if (holder.acquisition.machineId() >= fallbackFrom) {
                spells++;
                ids += holder.to - holder.from;
                if (!sameService) {
                    atStart++;
                }
            } else if (sameService && previous.acquisition.machineId() >= fallbackFrom) {
                back++;
            }
            previous = holder;
        }
        return new Fallbacks(spells, atStart, back, ids);
    }

    /**
     * Whether {@code other} acquired the machine ID after (1) or before (-1) {@code holder}, or 0 when that cannot
     * be told. The table's generation is exact. Otherwise a holder whose build started after the other's acquire had
     * returned certainly committed later: one clock, and a commit lies between a build's start and its return.
     */
    private int order(Holder holder, Holder other) {
        ChaosLog.Acquisition a = holder.acquisition;
        ChaosLog.Acquisition b = other.acquisition;
        if (orderByGeneration && a.generation() >= 0 && b.generation() >= 0) {
            return Long.compare(b.generation(), a.generation());
        }
        if (b.buildStartedAt() > a.acquiredAt()) {
            return 1;
        }
        if (a.buildStartedAt() > b.acquiredAt()) {
            return -1;
        }
        return 0;
    }

    /** A second pass over the files for a few duplicated values: which holders wrote each. */
    private List<String> whereFrom(List<Path> files, Set<Long> samples) throws IOException {
        Map<Long, List<String>> seen = new HashMap<>();
        for (Path file : files) {
            String[] current = { "(before any acquisition)" };
            ChaosLog.read(file, new ChaosLog.Visitor() {
                @Override
                public void id(long id) {
                    if (samples.contains(id)) {
                        seen.computeIfAbsent(id, k -> new ArrayList<>()).add(current[0]);
                    }
                }

                @Override
                public void record(long tag, long[] fields) {
                    if (tag == ChaosLog.ACQUIRE) {
                        ChaosLog.Acquisition a = ChaosLog.Acquisition.of(fields);
                        current[0] = "slot " + a.slot() + (a.ownerSlot() != a.slot() ? " (owner of slot " + a.ownerSlot() + ")" : "")
                                + " run " + a.run() + " attempt " + a.attempt() + " [" + file.getFileName() + "]";
                    }
                }
            });
        }
        List<String> lines = new ArrayList<>();
        for (Map.Entry<Long, List<String>> entry : seen.entrySet()) {
            long id = entry.getKey();
            var decoded = codec.expId(id);
            lines.add(String.format(Locale.ROOT, "duplicate: %d = machine %d, time %s, seq %d, written by %s", id,
                    decoded.machine(), codec.transTime(IdType.ofCode(decoded.type()), decoded.time()), decoded.seq(),
                    String.join(" and ", entry.getValue())));
        }
        return lines;
    }

    /**
     * Checks the files a kept run left behind again, e.g. after changing the checker:
     * {@code java -cp vesta-benchmarks/target/benchmarks.jar io.vesta.benchmarks.chaos.ChaosChecker DIR [--db]
     * [--fallback-from=N]}; {@code --db} orders holders by the table's generation where it was recorded,
     * {@code --fallback-from} counts the spans under machine IDs from N up as fallback spells (a run with {@code --fallback}:
     * N is its {@code --machine-ids}).
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: ChaosChecker DIR [--db] [--fallback-from=N]");
            System.exit(2);
        }
        Path dir = Path.of(args[0]);
        boolean db = Arrays.asList(args).contains("--db");
        long fallbackFrom = Arrays.stream(args).filter(a -> a.startsWith("--fallback-from="))
                .mapToLong(a -> Long.parseLong(a.substring("--fallback-from=".length()))).findFirst().orElse(Long.MAX_VALUE);
        Set<Integer> twins = new HashSet<>();
        try (Stream<Path> list = Files.list(dir)) {
            list.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("slot-") && n.endsWith(".ids"))
                    .map(n -> Integer.parseInt(n.substring(5, n.indexOf("-run-"))))
                    .filter(slot -> slot >= LeaseChaosHarness.TWIN_SLOTS).forEach(twins::add);
        }
        Result result = new ChaosChecker(db, fallbackFrom).check(dir, twins);
        print(System.out, result);
        System.exit(result.passed() ? 0 : 1);
    }

    static void print(PrintStream out, Result r) {
        out.printf(Locale.ROOT, "  IDs checked          %,d in %d files%n", r.idsChecked(), r.files());
        out.printf(Locale.ROOT, "  acquisitions         %,d (takeovers by another owner %,d, own ID back %,d, first holders %,d)%n",
                r.acquisitions(), r.takeovers(), r.ownBack(), r.fresh());
        out.printf(Locale.ROOT, "  refusals             range full %,d, unavailable %,d, other %,d; in same-owner processes %,d%n",
                r.refusalsRangeFull(), r.refusalsUnavailable(), r.refusalsOther(), r.sameOwnerRefusals());
        out.printf(Locale.ROOT, "  lease ran out        and came back %,d; services given up: lease out past the grace %,d, lost to"
                        + " another %,d, clock %,d; clean ends %,d%n",
                r.resumed(), r.lossesExpired(), r.lossesRevoked(), r.lossesClock(), r.cleanEnds());
        if (r.generationUnknown() > 0 || r.ambiguousPairs() > 0) {
            out.printf(Locale.ROOT, "  order                %,d holders ordered by time (no generation), %,d pairs of holders"
                    + " whose order cannot be told (not compared)%n", r.generationUnknown(), r.ambiguousPairs());
        }
        Fallbacks f = r.fallbacks();
        if (f.spells() > 0) {
            out.printf(Locale.ROOT, "  fallbacks            %,d spells (%,d from a start on the fallback, the rest switches of a"
                    + " running service), %,d back to a lease, %,d IDs under fallbacks%n", f.spells(), f.atStart(),
                    f.backToLease(), f.ids());
        }
        Outages o = r.outages();
        if (o.windows() > 0) {
            out.printf(Locale.ROOT, "  outages              %,d windows past a lease without quorum, %,d ms in all; leased IDs"
                    + " issued in them %,d%n", o.windows(), o.millis(), o.ids());
        }
        out.printf(Locale.ROOT, "  duplicates           %,d%n", r.duplicates());
        out.printf(Locale.ROOT, "  late IDs             %,d (after the next holder's notBefore; that holder: a second process under"
                        + " the same owner %,d, a restart of the same slot %,d, another owner %,d)%n",
                r.late(), r.lateSecondProcess(), r.lateSameOwner(), r.lateOtherOwner());
        out.printf(Locale.ROOT, "  early IDs            %,d (before the holder's own notBefore)%n", r.early());
        if (r.foreign() > 0 || r.orphans() > 0) {
            out.printf(Locale.ROOT, "  harness errors       %,d IDs of a foreign machine ID, %,d before any acquisition%n",
                    r.foreign(), r.orphans());
        }
        for (String finding : r.findings()) {
            out.println("  " + finding);
        }
    }
}
