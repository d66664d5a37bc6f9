package io.vesta.benchmarks.chaos;

import io.vesta.benchmarks.DirectoryTrees;
import io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A bounded chaos run of the machine-ID lease providers, not a unit test: several {@link ChaosNode} JVMs share
 * fewer machine IDs than there are nodes, so IDs change hands all the time, while this coordinator pauses nodes
 * with SIGSTOP for longer than the lease, kills and restarts them (same owner name, so they ask for their ID
 * back), and attacks the store: for the database lease table, {@code pg_terminate_backend} of the nodes'
 * connections and stalls of the table a little longer than a lease (updates held, reads let through, so that a
 * holder's renewal and another node's takeover of the same row meet); for ZooKeeper, members of a three-member
 * ensemble killed and restarted, and a second process started under the owner name of a node that holds an ID; for
 * Redis (a {@code redis-server} of the run's own, without persistence), the server killed and started again empty,
 * paused with SIGSTOP, and {@code CLIENT KILL} of the nodes' connections; for etcd (a three-member cluster of the
 * run's own), members killed and restarted or paused, the current leader in half of the faults, and the quorum lost for
 * 1.5 to 3 leases, in which the checker also counts every leased ID issued after the leases must have run out.
 * Every node appends each ID it issues to a file of its own; afterwards
 * {@link ChaosChecker} reads them all and counts duplicates and IDs issued after the issuing node's lease had
 * ended. Exits 1 if there is either (or another inconsistency), 2 on a usage or set-up error.
 *
 * <p>Everything runs on this host and talks to 127.0.0.1 only; every loop is bounded in time and count, and
 * every child is killed when the harness ends, also from a shutdown hook (and a child halts by itself once this
 * process is gone). About a minute per backend plus set-up and checking, so under three minutes with
 * {@code --backend=both}, five with {@code all}:
 * <pre>
 * mvn -q -B -DskipTests package -pl vesta-benchmarks -am &amp;&amp; \
 *   java -cp vesta-benchmarks/target/benchmarks.jar io.vesta.benchmarks.chaos.LeaseChaosHarness \
 *     --backend=db|zookeeper|redis|etcd|both|all [--seconds=60] [--nodes=5] [--machine-ids=3] [--seed=N] \
 *     [--jdbc-url=jdbc:postgresql://127.0.0.1:5432/test?user=postgres] [--lease-ms=1500] [--heartbeat-ms=375] \
 *     [--report-ms=150] [--reclaim-ms=1500] [--zk-lease-ms=N] [--rate=20000] [--fault-ms=200-600] \
 *     [--near-lease-stops=0.25] [--redis-server=redis-server] [--max-clock-skew-ms=100] [--work-dir=DIR] [--keep] \
 *     [--etcd-server=etcd] [--fallback]
 * </pre>
 * {@code --backend} is {@code both} (db and zookeeper) by default; {@code all} adds redis and etcd, which use
 * {@code --lease-ms}, {@code --heartbeat-ms} and {@code --max-clock-skew-ms}. {@code --zk-lease-ms} sets the ZooKeeper provider's
 * {@code lease}; without it the provider's default applies (30 s, or half of {@code reclaimAfter} if shorter). The files of a failed run (or of any run, with
 * {@code --keep}) stay behind, with {@code events.txt}, the faults in order; {@link ChaosChecker#main} checks
 * them again.
 *
 * <p>{@code --fallback}: every node has a fallback machine ID of its own outside the leased range ({@code --machine-ids}
 * plus its slot; the second processes under another slot's owner get theirs above the nodes'), and a time store of its
 * slot, and keeps its service across the switches to the fallback and back. The store faults then last long enough
 * for leases to run out (the table locked for 2 to 3 leases, Redis paused for 1.5 to 3, two of the three ZooKeeper
 * members down for 1.5 to 3 times {@code reclaimAfter}, two of the three etcd members for 1.5 to 3 leases, more often
 * than without), so that every node switches; the checker counts the spells
 * and the IDs under fallbacks, and every ID, leased or not, goes through the duplicate check.
 */
public final class LeaseChaosHarness {

    /** Slots of the second processes under another slot's owner: apart from the regular ones in the files. */
    static final int TWIN_SLOTS = 100;

    /** The settings of one harness run; see the class comment for the defaults. */
    record Options(String backend, int seconds, int nodes, int machineIds, long seed, String jdbcUrl, long leaseMillis,
            long heartbeatMillis, long reportMillis, long reclaimMillis, Long zkLeaseMillis, double rate,
            long faultMinMillis, long faultMaxMillis, double nearLeaseStops, Path workDir, boolean keep,
            String redisServer, long maxClockSkewMillis, boolean fallback, String etcdServer) {

        /** The backends a run goes through, in order. */
        List<String> backends() {
            return switch (backend) {
                case "both" -> List.of("db", "zookeeper");
                case "all" -> List.of("db", "zookeeper", "redis", "etcd");
                default -> List.of(backend);
            };
        }

        static Options of(Map<String, String> o) {
            Set<String> known = Set.of("backend", "seconds", "nodes", "machine-ids", "seed", "jdbc-url", "lease-ms",
                    "heartbeat-ms", "report-ms", "reclaim-ms", "zk-lease-ms", "rate", "fault-ms", "near-lease-stops",
                    "work-dir", "keep", "redis-server", "max-clock-skew-ms", "fallback", "etcd-server");
            for (String key : o.keySet()) {
                if (!known.contains(key)) {
                    throw new IllegalArgumentException("unknown option --" + key);
                }
            }
            String backend = o.getOrDefault("backend", "both");
            if (!Set.of("db", "zookeeper", "redis", "etcd", "both", "all").contains(backend)) {
                throw new IllegalArgumentException("--backend must be db, zookeeper, redis, etcd, both (db and zookeeper)"
                        + " or all, was " + backend);
            }
            int seconds = range("seconds", Integer.parseInt(o.getOrDefault("seconds", "60")), 10, 600);
            int nodes = range("nodes", Integer.parseInt(o.getOrDefault("nodes", "5")), 2, 12);
            int machineIds = range("machine-ids", Integer.parseInt(o.getOrDefault("machine-ids",
                    String.valueOf(Math.max(1, nodes - 2)))), 1, nodes);
            long lease = range("lease-ms", Long.parseLong(o.getOrDefault("lease-ms", "1500")), 1000, 10_000);
            long heartbeat = range("heartbeat-ms", Long.parseLong(o.getOrDefault("heartbeat-ms",
                    String.valueOf(lease / 4))), 10, lease / 3);
            long report = range("report-ms", Long.parseLong(o.getOrDefault("report-ms", "150")), 100, 5000);
            long reclaim = range("reclaim-ms", Long.parseLong(o.getOrDefault("reclaim-ms", String.valueOf(10 * report))),
                    10 * report, 600_000);
            Long zkLease = o.containsKey("zk-lease-ms") ? Long.valueOf(o.get("zk-lease-ms")) : null;
            double rate = Double.parseDouble(o.getOrDefault("rate", "20000"));
            if (rate < 100 || rate > 500_000) {
                throw new IllegalArgumentException("--rate must be in [100, 500000] IDs per second per node, was " + rate);
            }
            String[] fault = o.getOrDefault("fault-ms", "200-600").split("-");
            long faultMin = Long.parseLong(fault[0]);
            long faultMax = fault.length > 1 ? Long.parseLong(fault[1]) : faultMin;
            if (faultMin < 50 || faultMax < faultMin || faultMax > 60_000) {
                throw new IllegalArgumentException("--fault-ms must be MIN-MAX with 50 <= MIN <= MAX <= 60000");
            }
            double near = Double.parseDouble(o.getOrDefault("near-lease-stops", "0.25"));
            if (near < 0 || near > 1) {
                throw new IllegalArgumentException("--near-lease-stops must be a share in [0, 1], was " + near);
            }
            String url = o.getOrDefault("jdbc-url", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
            requireLoopback(url);
            long seed = o.containsKey("seed") ? Long.parseLong(o.get("seed")) : System.nanoTime() ^ System.currentTimeMillis();
            long skew = range("max-clock-skew-ms", Long.parseLong(o.getOrDefault("max-clock-skew-ms", "100")), 0, 60_000);
            return new Options(backend, seconds, nodes, machineIds, seed, url, lease, heartbeat, report, reclaim, zkLease,
                    rate, faultMin, faultMax, near, o.containsKey("work-dir") ? Path.of(o.get("work-dir")) : null,
                    o.containsKey("keep"), o.getOrDefault("redis-server", "redis-server"), skew, o.containsKey("fallback"),
                    o.getOrDefault("etcd-server", "etcd"));
        }

        private static int range(String name, int value, int min, int max) {
            return (int) range(name, (long) value, min, max);
        }

        private static long range(String name, long value, long min, long max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException("--" + name + " must be in [" + min + ", " + max + "], was " + value);
            }
            return value;
        }

        /** The nodes hammer the database with faults: only ever one on this machine. */
        private static void requireLoopback(String url) {
            String rest = url.startsWith("jdbc:") ? url.substring(5) : url;
            String host = URI.create(rest).getHost();
            if (host == null || !(host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]") || host.equals("::1"))) {
                throw new IllegalArgumentException("--jdbc-url must point at this machine (127.0.0.1), was " + url);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        // Curator, ZooKeeper and Hikari log through SLF4J, which has no provider here: say nothing about that.
        System.setProperty("slf4j.internal.verbosity", "ERROR");
        Options options;
        try {
            options = Options.of(parse(args));
            if (options.zkLeaseMillis() != null && !options.backend().equals("db")) {
                // Fail here, not in every child, on a lease the provider refuses for the report interval given.
                ZooKeeperMachineIdProvider.builder("127.0.0.1:1").reportInterval(Duration.ofMillis(options.reportMillis()))
                        .reclaimAfter(Duration.ofMillis(options.reclaimMillis())).lease(Duration.ofMillis(options.zkLeaseMillis()))
                        .build();
            }
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("LeaseChaosHarness: " + e.getMessage());
            System.exit(2);
            return;
        }
        List<Process> children = new CopyOnWriteArrayList<>();
        List<AutoCloseable> stores = new CopyOnWriteArrayList<>();
        // Also on Ctrl-C or SIGTERM: no node outlives the harness, and the lease table is dropped.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            children.forEach(Process::destroyForcibly);
            for (AutoCloseable store : stores) {
                try {
                    store.close();
                } catch (Exception e) {
                    System.err.println("cleanup: " + e);
                }
            }
        }, "chaos-cleanup"));

        PrintStream out = System.out;
        out.printf(Locale.ROOT, "LeaseChaosHarness: backend %s, %d nodes, %d machine IDs, %d s each, seed %d%s%n",
                options.backend(), options.nodes(), options.machineIds(), options.seconds(), options.seed(),
                options.fallback() ? ", each node with a fallback machine ID of its own" : "");
        out.printf(Locale.ROOT, "  %s; java %s; %d cores%n", Instant.now(), System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        List<Row> rows = new ArrayList<>();
        boolean passed = true;
        SplittableRandom seeds = new SplittableRandom(options.seed());
        for (String backend : options.backends()) {
            Row row;
            try {
                row = new Run(options, backend, seeds.nextLong(), children, stores, out).execute();
            } catch (Exception e) {
                out.println("  " + backend + " run failed: " + e);
                e.printStackTrace(out);
                passed = false;
                continue;
            }
            rows.add(row);
            passed &= row.passed;
        }
        out.println();
        out.println("| backend | nodes | machine IDs | seconds | IDs checked | SIGSTOP (near lease) | SIGKILL + restart"
                + " | store faults | same-owner starts | acquisitions / takeovers | refusals (same owner)"
                + (options.fallback() ? " | fallback spells (at start-up) | back to a lease | IDs under fallbacks" : "")
                + " | duplicates | late IDs |");
        out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|" + (options.fallback() ? "---|---|---|" : ""));
        for (Row row : rows) {
            out.println(row.markdown());
        }
        out.println();
        out.println(passed ? "PASS: no duplicate and no late ID" : "FAIL: see the figures above");
        System.exit(passed ? 0 : 1);
    }

    /** {@code --name=value} and bare {@code --flag}, into a map. */
    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("options are --name=value, was " + arg);
            }
            int eq = arg.indexOf('=');
            options.put(eq < 0 ? arg.substring(2) : arg.substring(2, eq), eq < 0 ? "" : arg.substring(eq + 1));
        }
        return options;
    }

    /** One row of the summary table. */
    record Row(String backend, int nodes, int machineIds, int seconds, ChaosChecker.Result result, Map<String, Long> faults,
            boolean passed, boolean fallback) {

        String markdown() {
            String storeFaults = switch (backend) {
                case "db" -> String.format(Locale.ROOT, "%,d connection kills, %,d table stalls", fault("conn-kill"),
                        fault("table stall"));
                case "redis" -> String.format(Locale.ROOT, "%,d restarts (data lost), %,d pauses, %,d connection kills",
                        fault("redis restart"), fault("redis pause"), fault("conn-kill"));
                case "etcd" -> String.format(Locale.ROOT, "%,d member kills, %,d member pauses, %,d quorum losses;"
                        + " %,d of them on the leader", fault("member kill"), fault("member pause"), fault("quorum loss"),
                        fault("leader fault"));
                default -> String.format(Locale.ROOT, "%,d member restarts", fault("member restart"))
                        + (fallback ? String.format(Locale.ROOT, ", %,d quorum losses", fault("quorum loss")) : "");
            };
            boolean twins = backend.equals("zookeeper");
            ChaosChecker.Fallbacks f = result.fallbacks();
            String fallbacks = !fallback ? "" : String.format(Locale.ROOT, " %,d (%,d) | %,d | %,d |", f.spells(),
                    f.atStart(), f.backToLease(), f.ids());
            return String.format(Locale.ROOT, "| %s | %d | %d | %d | %,d | %,d (%,d) | %,d | %s | %s | %,d / %,d | %s |%s %,d | %,d |",
                    backend, nodes, machineIds, seconds, result.idsChecked(), fault("stop"), fault("stop near lease"),
                    fault("kill"), storeFaults, !twins ? "-" : String.format(Locale.ROOT, "%,d", fault("same-owner start")),
                    result.acquisitions(), result.takeovers(),
                    !twins ? "-" : String.format(Locale.ROOT, "%,d", result.sameOwnerRefusals()), fallbacks,
                    result.duplicates(), result.late());
        }

        private long fault(String kind) {
            return faults.getOrDefault(kind, 0L);
        }
    }

    /** A child JVM in one slot; a slot's processes run one after another, each with its own file. */
    static final class NodeProcess {
        final int slot;
        final int ownerSlot;
        int run;
        Process process;
        long resumeAt = -1;
        long restartAt = -1;
        long endsAt = Long.MAX_VALUE;

        NodeProcess(int slot, int ownerSlot) {
            this.slot = slot;
            this.ownerSlot = ownerSlot;
        }

        boolean twin() {
            return slot >= TWIN_SLOTS;
        }

        boolean alive() {
            return process != null && process.isAlive();
        }

        boolean stopped() {
            return resumeAt >= 0;
        }
    }

    /** One backend's run: start the nodes, inject faults until the time is up, stop everything, check. */
    static final class Run {
        private final Options options;
        private final String backendName;
        private final SplittableRandom random;
        private final List<Process> children;
        private final List<AutoCloseable> stores;
        private final PrintStream out;
        private final List<NodeProcess> nodes = new ArrayList<>();
        private final List<NodeProcess> twins = new ArrayList<>();
        private final Map<String, Long> faults = new LinkedHashMap<>();
        private final List<String> events = new ArrayList<>();
        private final String java;
        private ChaosBackend backend;
        private Path dir;
        private long startedAt;
        private long end;

        Run(Options options, String backendName, long seed, List<Process> children, List<AutoCloseable> stores,
                PrintStream out) {
            this.options = options;
            this.backendName = backendName;
            this.random = new SplittableRandom(seed);
            this.children = children;
            this.stores = stores;
            this.out = out;
            this.java = ProcessHandle.current().info().command()
                    .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        }

        Row execute() throws Exception {
            String suffix = Long.toHexString(random.nextLong() & 0xffffffffL);
            dir = options.workDir() != null ? Files.createDirectories(options.workDir().resolve(backendName + "-" + suffix))
                    : Files.createTempDirectory("vesta-chaos-" + backendName + "-");
            out.println();
            out.printf(Locale.ROOT, "== %s: %d nodes on machine IDs 0-%d, %d s, files in %s%n", backendName, options.nodes(),
                    options.machineIds() - 1, options.seconds(), dir);
            backend = switch (backendName) {
                case "db" -> new ChaosBackend.Db(options, dir, suffix, random);
                case "redis" -> new ChaosBackend.Redis(options, dir, suffix, random);
                case "etcd" -> new ChaosBackend.Etcd(options, dir, suffix, random);
                default -> new ChaosBackend.ZooKeeper(options, dir, suffix, random);
            };
            ChaosChecker.Result result;
            stores.add(backend);
            try (ChaosBackend ignored = backend) {
                backend.start(out);
                out.printf(Locale.ROOT, "  %s; SIGSTOP for 1.5-3x (and %.0f%% of them 0.9-1.2x) %d ms; a fault every %d-%d ms;"
                                + " %,.0f IDs/s per node at most%n",
                        !backendName.equals("zookeeper") ? "lease " + options.leaseMillis() + " ms, heartbeat "
                                + options.heartbeatMillis() + " ms" + (Set.of("redis", "etcd").contains(backendName) ? ", max clock skew "
                                + options.maxClockSkewMillis() + " ms" : "")
                                : "reportInterval " + options.reportMillis() + " ms, reclaimAfter " + options.reclaimMillis() + " ms"
                                + (options.zkLeaseMillis() != null ? ", lease " + options.zkLeaseMillis() + " ms" : ", lease not set"),
                        options.nearLeaseStops() * 100, backend.handOverMillis(), options.faultMinMillis(),
                        options.faultMaxMillis(), options.rate());
                startedAt = System.currentTimeMillis();
                end = startedAt + options.seconds() * 1000L;
                for (int slot = 0; slot < options.nodes(); slot++) {
                    NodeProcess node = new NodeProcess(slot, slot);
                    nodes.add(node);
                    start(node);
                }
                loop();
                stopAll();
                backend.quiesce();
                backend.describeEnd(out);
                result = new ChaosChecker(backend.orderByGeneration(),
                        options.fallback() ? options.machineIds() : Long.MAX_VALUE).check(dir, twinSlots());
            }
            stores.remove(backend);
            out.printf(Locale.ROOT, "  faults               %s%n", faultSummary());
            ChaosChecker.print(out, result);
            boolean passed = result.passed();
            out.println("  verdict              " + (passed ? "PASS" : "FAIL") + (passed && !options.keep() ? "" : " (files kept in " + dir + ")"));
            if (passed && !options.keep()) {
                DirectoryTrees.delete(dir);
            } else {
                Files.write(dir.resolve("events.txt"), events);
            }
            return new Row(backendName, options.nodes(), options.machineIds(), options.seconds(), result, faults, passed,
                    options.fallback());
        }

        private void loop() throws Exception {
            long nextFault = startedAt + 2000;
            long now;
            int iterations = 0;
            while ((now = System.currentTimeMillis()) < end && iterations++ < 10_000_000) {
                for (NodeProcess node : all()) {
                    if (node.stopped() && now >= node.resumeAt) {
                        signal(node, "CONT");
                        node.resumeAt = -1;
                    }
                }
                for (NodeProcess node : nodes) {
                    if (!node.alive()) {
                        if (node.restartAt < 0) {
                            if (end - now < 1000) {
                                continue; // at its deadline
                            }
                            // Exited by itself before its deadline: a failure of the node worth a look.
                            count("unexpected exit");
                            event("slot " + node.slot + " run " + node.run + " exited with " + node.process.exitValue());
                            node.restartAt = now + 1000;
                        } else if (now >= node.restartAt && end - now > 1500) {
                            node.restartAt = -1;
                            start(node);
                        }
                    }
                }
                for (NodeProcess twin : List.copyOf(twins)) {
                    if (now >= twin.endsAt || !twin.alive()) {
                        kill(twin);
                        twins.remove(twin);
                    }
                }
                backend.tick(now, this);
                // No new fault in the last two seconds: every node that is up then ends cleanly and closes its
                // service, so the release path is exercised too.
                if (now >= nextFault && end - now > 2000) {
                    fault();
                    nextFault = now + options.faultMinMillis()
                            + random.nextLong(options.faultMaxMillis() - options.faultMinMillis() + 1);
                }
                Thread.sleep(5);
            }
        }

        private void fault() throws Exception {
            int roll = random.nextInt(100);
            // The table and Redis have faults of a node's connection; ZooKeeper's are its members, in tick.
            boolean db = backend.hasNodeFaults();
            if (db && roll < 30 && backend.nodeFault(this)) {
                return;
            }
            // Kills are the rarer node fault: a restarted JVM takes about a second to issue again on two cores.
            if (roll < (db ? 80 : 75)) {
                long stopped = all().stream().filter(NodeProcess::stopped).count();
                List<NodeProcess> candidates = all().stream().filter(n -> n.alive() && !n.stopped()).toList();
                // Leave half the nodes running, so that IDs keep changing hands rather than everything waiting.
                if (stopped < Math.max(1, options.nodes() / 2) && !candidates.isEmpty()) {
                    NodeProcess node = candidates.get(random.nextInt(candidates.size()));
                    boolean near = random.nextDouble() < options.nearLeaseStops();
                    double factor = near ? 0.9 + random.nextDouble() * 0.3 : 1.5 + random.nextDouble() * 1.5;
                    long pause = Math.round(factor * backend.handOverMillis());
                    signal(node, "STOP");
                    node.resumeAt = System.currentTimeMillis() + pause;
                    count("stop");
                    if (near) {
                        count("stop near lease");
                    }
                    event("SIGSTOP slot " + node.slot + " for " + pause + " ms");
                    return;
                }
                // Half the nodes are paused already: a store fault instead (if the store has one of that kind),
                // not more kills than were drawn.
                backend.nodeFault(this);
                return;
            }
            List<NodeProcess> candidates = nodes.stream().filter(NodeProcess::alive).toList();
            if (candidates.isEmpty()) {
                return;
            }
            NodeProcess node = candidates.get(random.nextInt(candidates.size()));
            kill(node);
            node.restartAt = System.currentTimeMillis() + 200 + random.nextInt(800);
            count("kill");
            event("SIGKILL slot " + node.slot + " run " + node.run + ", restart in " + (node.restartAt - System.currentTimeMillis()) + " ms");
        }

        private void start(NodeProcess node) throws IOException {
            node.run++;
            String name = "slot-" + node.slot + "-run-" + node.run;
            List<String> command = new ArrayList<>(List.of(java, "-Xms32m", "-Xmx128m", "-XX:+UseSerialGC",
                    "-Dslf4j.internal.verbosity=ERROR",
                    "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), ChaosNode.class.getName(),
                    "--slot=" + node.slot, "--owner-slot=" + node.ownerSlot, "--run=" + node.run, "--backend=" + backendName,
                    "--owner=" + backend.owner(node.ownerSlot), "--deadline=" + end,
                    "--max-ids=" + (long) (options.rate() * options.seconds() * 1.2 + 10_000), "--rate=" + options.rate(),
                    "--range-min=0", "--range-max=" + (options.machineIds() - 1), "--seed=" + random.nextLong(),
                    "--grace-ms=" + 2 * backend.handOverMillis(), "--parent-pid=" + ProcessHandle.current().pid(), "--out=" + dir.resolve(name + ".ids")));
            command.addAll(backend.nodeArgs(node.slot, backend.owner(node.ownerSlot)));
            if (options.fallback()) {
                // Each process its own fallback, as an operator gives each node its own; a slot's runs share their
                // slot's, one after another, and its time store (a killed run's restart starts after its mark).
                long fallback = node.twin() ? options.machineIds() + options.nodes() + (node.slot - TWIN_SLOTS)
                        : options.machineIds() + node.slot;
                command.add("--fallback=" + fallback);
                command.add("--marks-dir=" + dir.resolve("marks-slot-" + node.slot));
            }
            Path log = dir.resolve(name + ".log");
            node.process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            node.resumeAt = -1;
            children.add(node.process);
        }

        void startTwin(int slot, int ownerSlot, long lifetime) throws IOException {
            NodeProcess twin = new NodeProcess(slot, ownerSlot);
            start(twin);
            twin.endsAt = System.currentTimeMillis() + lifetime;
            twins.add(twin);
        }

        private void kill(NodeProcess node) throws InterruptedException {
            if (node.process == null) {
                return;
            }
            node.process.destroyForcibly();
            node.process.waitFor(10, TimeUnit.SECONDS);
            node.resumeAt = -1;
            children.remove(node.process);
        }

        private void signal(NodeProcess node, String signal) throws IOException, InterruptedException {
            if (!node.alive()) {
                return;
            }
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(node.process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(5, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
            }
        }

        private void stopAll() throws Exception {
            // Resumed nodes meet their deadline at once; their refusals and closing writes are part of the test.
            for (NodeProcess node : all()) {
                if (node.stopped()) {
                    signal(node, "CONT");
                    node.resumeAt = -1;
                }
            }
            for (NodeProcess twin : twins) {
                kill(twin);
            }
            long waitUntil = System.currentTimeMillis() + 15_000;
            for (NodeProcess node : nodes) {
                if (node.process != null) {
                    long left = Math.max(1, waitUntil - System.currentTimeMillis());
                    if (!node.process.waitFor(left, TimeUnit.MILLISECONDS)) {
                        count("forced at end");
                        kill(node);
                    }
                    children.remove(node.process);
                }
            }
        }

        private List<NodeProcess> all() {
            List<NodeProcess> all = new ArrayList<>(nodes);
            all.addAll(twins);
            return all;
        }

        private Set<Integer> twinSlots() throws IOException {
            Set<Integer> slots = new HashSet<>();
            try (Stream<Path> files = Files.list(dir)) {
                files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("slot-") && n.endsWith(".ids"))
                        .map(n -> Integer.parseInt(n.substring(5, n.indexOf("-run-"))))
                        .filter(s -> s >= TWIN_SLOTS).forEach(slots::add);
            }
            return slots;
        }

        long timeLeft(long now) {
            return end - now;
        }

        boolean twinAlive() {
            return !twins.isEmpty();
        }

        /** A running, unpaused node, one of {@code preferred} slots if any of them is. */
        NodeProcess randomRunningNode(Set<Integer> preferred) {
            List<NodeProcess> running = nodes.stream().filter(n -> n.alive() && !n.stopped()).toList();
            List<NodeProcess> chosen = running.stream().filter(n -> preferred.contains(n.slot)).toList();
            List<NodeProcess> from = chosen.isEmpty() ? running : chosen;
            return from.isEmpty() ? null : from.get(random.nextInt(from.size()));
        }

        void count(String kind) {
            count(kind, 1);
        }

        /** Also from a backend's fault thread (etcd's), hence synchronized, as {@link #event} is. */
        synchronized void count(String kind, long n) {
            faults.merge(kind, n, Long::sum);
        }

        synchronized void event(String what) {
            events.add(String.format(Locale.ROOT, "%6.3f s  %s", (System.currentTimeMillis() - startedAt) / 1000.0, what));
        }

        private String faultSummary() {
            StringBuilder text = new StringBuilder();
            for (Map.Entry<String, Long> entry : faults.entrySet()) {
                text.append(text.length() == 0 ? "" : ", ").append(entry.getKey()).append(' ').append(entry.getValue());
            }
            return text.length() == 0 ? "none" : text.toString();
        }
    }
}
