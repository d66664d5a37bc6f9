package io.vesta.sim;

import io.vesta.EmbeddedIdService;
import io.vesta.Id;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeaseTimer;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdRange;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ResourceBundle;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A deterministic simulation of the lease engine: a few nodes, each running the real {@link LeasedMachineIdProvider}
 * and the real {@link EmbeddedIdService} over a model store, driven by one seeded {@link Scheduler}. Each node has a
 * clock of its own ({@link SimClock}) that drifts and steps within the store's clock-skew bound; its renewals run on
 * the scheduler (the engine's {@link LeaseTimer}); it pauses (a GC pause, a stopped VM) for longer than the lease, is
 * cut off from the store, closes and starts again, or crashes and starts again under the same owner. Every store call
 * takes virtual time and may be lost, lose its reply after the write landed, or be delivered twice; the stores
 * themselves fail as their model says (a Redis-like server restarts empty or from a snapshot, ZooKeeper sessions
 * expire, etcd changes leaders and is restored from older snapshots). Every ID issued is judged by the {@link Checker}
 * against the store's history.
 *
 * <p>The same {@link Scenario} gives the same trace, event for event: one thread runs at a time, and every random
 * choice comes from the scheduler's seeded source.
 */
public final class Simulation {

    /** What a run is: a seed, the store it runs against, and the store's defect (none but to prove the checker). */
    public record Scenario(long seed, Store store, Defect defect) {

        /** {@code "1234:ROW:NONE"}, as {@link #parse} reads it. */
        @Override
        public String toString() {
            return seed + ":" + store + ":" + defect;
        }

        /** Reads {@code "seed:STORE:DEFECT"}, or a bare seed with the store it picks ({@link #forSeed}). */
        public static Scenario parse(String text) {
            String[] parts = text.trim().split(":");
            long seed = Long.parseLong(parts[0]);
            if (parts.length == 1) {
                return forSeed(seed);
            }
            return new Scenario(seed, Store.valueOf(parts[1].toUpperCase(Locale.ROOT)),
                    parts.length > 2 ? Defect.valueOf(parts[2].toUpperCase(Locale.ROOT)) : Defect.NONE);
        }

        /** The seed's scenario in a sweep over every store: seed mod 4 (the number of stores) picks it. */
        public static Scenario forSeed(long seed) {
            return new Scenario(seed, Store.values()[Math.floorMod(seed, Store.values().length)], Defect.NONE);
        }
    }

    /** What a run came to. */
    public record Result(Scenario scenario, List<String> failures, String trace, int ids, int tenures, long events,
            long refusals) {

        public boolean failed() {
            return !failures.isEmpty();
        }
    }

    /** The true time every run starts at. */
    static final long START = Instant.parse("2026-06-01T12:00:00Z").toEpochMilli();
    private static final IdCodec CODEC = new IdCodec(IdCodec.DEFAULT_EPOCH);
    private static final long EPOCH = IdCodec.DEFAULT_EPOCH.toEpochMilli();
    /** Kept, so that the level set on it stays: the generator's own log says nothing during simulations. */
    private static final Logger VESTA_LOG = Logger.getLogger("io.vesta");
    private static final System.Logger SILENT = new System.Logger() {
        @Override
        public String getName() {
            return "sim";
        }

        @Override
        public boolean isLoggable(Level level) {
            return false;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        }
    };

    static {
        VESTA_LOG.setLevel(Level.OFF);
    }

    final Scenario scenario;
    final Scheduler scheduler;
    final Checker checker = new Checker();
    private final StringBuilder trace = new StringBuilder();
    private final List<Node> nodes = new ArrayList<>();
    private final Object model;
    final long lease;
    final long renewal;
    /** How far apart two nodes' clocks may be: the stores' documented bound. */
    final long maxSkew;
    final int blockSize;
    final MachineIdRange range;
    private final long duration;
    private long refusals;
    private Throwable crash;

    private Simulation(Scenario scenario) {
        this.scenario = scenario;
        this.scheduler = new Scheduler(scenario.seed(), START);
        int nodeCount = (int) scheduler.between(2, 4);
        this.blockSize = scheduler.chance(0.2) ? 2 : 1;
        long blocks = scheduler.between(Math.max(1, nodeCount - 1), nodeCount + 1);
        // Odd seeds hand the range out from the top down, as servers take theirs; chosen by the seed rather than drawn,
        // so that every other draw of a seed stays what it was.
        this.range = new MachineIdRange(0, blocks * blockSize - 1, (scenario.seed() & 1) == 1
                ? MachineIdRange.Order.DESCENDING : MachineIdRange.Order.ASCENDING);
        this.lease = scheduler.between(1_000, 3_000);
        this.renewal = lease / LeaseSettings.RENEWALS_PER_LEASE - scheduler.between(0, lease / 6);
        this.maxSkew = scheduler.between(0, 1_000);
        this.duration = scheduler.between(10_000, 16_000);
        this.model = switch (scenario.store()) {
            case ROW -> new RowStoreModel(this);
            case REDIS -> new RedisModel(this);
            case ZOOKEEPER -> new ZooKeeperModel(this);
            case ETCD -> new EtcdModel(this);
        };
        trace("scenario " + scenario + ": " + nodeCount + " nodes, range " + range + " (" + range.order().name()
                .toLowerCase(java.util.Locale.ROOT) + "), block " + blockSize + ", lease " + lease + " ms, renewal "
                + renewal + " ms, max skew " + maxSkew + " ms, " + duration + " ms");
        for (int i = 1; i <= nodeCount; i++) {
            nodes.add(new Node(i, new SimClock(scheduler, maxSkew, scheduler.between(-maxSkew / 2, maxSkew / 2))));
        }
    }

    /** Runs {@code scenario} and judges it. */
    public static Result run(Scenario scenario) {
        return new Simulation(scenario).run();
    }

    private Result run() {
        try {
            for (Node node : nodes) {
                scheduler.after(scheduler.between(0, 2_000), () -> startRun(node));
                scheduler.after(scheduler.between(0, 300), () -> request(node));
                scheduler.after(scheduler.between(100, 500), () -> clock(node));
                scheduler.after(scheduler.between(1_000, 5_000), () -> trouble(node));
            }
            if (model instanceof RedisModel redis) {
                redis.schedule();
            }
            if (model instanceof EtcdModel etcd) {
                etcd.schedule();
            }
            scheduler.runUntil(START + duration);
        } catch (RuntimeException | Error e) {
            crash = e;
        } finally {
            for (Node node : nodes) {
                if (node.run != null) {
                    node.run.fiber.close();
                }
                for (Run hung : node.hung) {
                    hung.fiber.close();
                }
            }
        }
        if (crash != null) {
            java.io.StringWriter stack = new java.io.StringWriter();
            crash.printStackTrace(new java.io.PrintWriter(stack));
            checker.fail("the simulation itself failed: " + stack);
        } else {
            checker.finish();
        }
        return new Result(scenario, List.copyOf(checker.failures()), trace.toString(), checker.ids(),
                checker.tenures().size(), scheduler.events(), refusals);
    }

    void trace(String line) {
        trace.append('+').append(scheduler.now() - START).append(' ').append(line).append('\n');
    }

    /** A machine: an owner and a clock that outlive the runs of its process. */
    final class Node {
        final int index;
        final String owner;
        final SimClock clock;
        long pausedUntil = Long.MIN_VALUE;
        long cutOffUntil = Long.MIN_VALUE;
        Run run;
        /** Runs of this node's owner that hung while a new one started beside them (ZooKeeper scenarios only). */
        final List<Run> hung = new ArrayList<>();
        int runs;

        Node(int index, SimClock clock) {
            this.index = index;
            this.owner = "node-" + index;
            this.clock = clock;
        }

        /** Runs {@code action} at {@code time} for {@code run}: after a pause ends, and never once the run is over. */
        void at(long time, Run forRun, Runnable action) {
            scheduler.at(time, () -> {
                if (forRun != null && forRun.over) {
                    return;
                }
                long until = Math.max(pausedUntil, forRun == null ? Long.MIN_VALUE : forRun.pausedUntil);
                if (until > scheduler.now()) {
                    at(until, forRun, action);
                    return;
                }
                action.run();
            });
        }
    }

    /** One run of a node's process: its fiber, provider, service and the tenures its claims began. */
    final class Run {
        final Node node;
        final String label;
        final Fiber fiber;
        final List<Tenure> tenures = new ArrayList<>();
        /** Until when this process alone is stopped (a SIGSTOP), beside its node's pauses. */
        long pausedUntil = Long.MIN_VALUE;
        LeasedMachineIdProvider<?> provider;
        EmbeddedIdService service;
        boolean over;

        Run(Node node) {
            this.node = node;
            this.label = "n" + node.index + "#" + ++node.runs;
            this.fiber = new Fiber("sim-" + label, this);
        }

        /** On the fiber: this node spends {@code millis} of virtual time waiting (for the network). */
        void sleep(long millis) {
            Fiber self = fiber;
            node.at(scheduler.now() + millis, this, self::resume);
            self.park();
        }

        /** The engine's timer: ticks on the fiber, a fixed delay after each tick ends, never while it is busy. */
        LeaseTimer timer() {
            return (name, periodMillis, tick) -> {
                boolean[] cancelled = {false};
                Runnable[] next = new Runnable[1];
                next[0] = () -> {
                    if (cancelled[0]) {
                        return;
                    }
                    if (fiber.busy()) {
                        node.at(scheduler.now() + 1, this, next[0]);
                        return;
                    }
                    fiber.start(() -> {
                        tick.run();
                        if (!cancelled[0]) {
                            node.at(scheduler.now() + periodMillis, this, next[0]);
                        }
                    });
                };
                node.at(scheduler.now() + periodMillis, this, next[0]);
                return () -> cancelled[0] = true;
            };
        }

        /** The tenure this run issues {@code machine} under: its latest claim holding it. */
        Tenure tenure(long machine) {
            for (int i = tenures.size() - 1; i >= 0; i--) {
                Tenure tenure = tenures.get(i);
                if (machine >= tenure.block.first() && machine <= tenure.block.last()) {
                    return tenure;
                }
            }
            return null;
        }
    }

    private LeaseBackend<?> backend(Run run) {
        if (model instanceof RowStoreModel rows) {
            return rows.backend(run);
        }
        if (model instanceof RedisModel redis) {
            return redis.backend(run);
        }
        if (model instanceof EtcdModel etcd) {
            return etcd.backend(run);
        }
        return ((ZooKeeperModel) model).backend(run);
    }

    private void startRun(Node node) {
        if (node.run != null) {
            return;
        }
        Run run = new Run(node);
        node.run = run;
        LeaseSettings settings = new LeaseSettings(node.owner, Duration.ofMillis(lease), Duration.ofMillis(renewal),
                node.clock, run.timer(), "", LeaseSettings.Limits.heartbeat(255)).validate();
        run.provider = new LeasedMachineIdProvider<>(backend(run), settings, "SimMachineIdProvider", SILENT);
        trace(run.label + " starts");
        run.fiber.start(() -> {
            try {
                run.service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineIdProvider(run.provider)
                        .machineIdRange(range).machineIdBlockSize(blockSize).timeSource(node.clock)
                        .maxBackwardWait(Duration.ZERO).build();
                trace(run.label + " issues under " + run.service.machineIdBlock().describe());
            } catch (IllegalStateException e) {
                // MachineIdUnavailableException among them
                trace(run.label + " could not start: " + e.getMessage());
                scheduler.after(0, () -> endRun(run, scheduler.between(lease / 2, 2 * lease)));
            }
        });
    }

    /** The run is over (closed, crashed, or it could not start); the node starts again {@code restartIn} later. */
    private void endRun(Run run, long restartIn) {
        if (run.over) {
            return;
        }
        run.over = true;
        run.fiber.close();
        run.node.run = null;
        scheduler.after(restartIn, () -> startRun(run.node));
    }

    /** A client asks the node for a few IDs, now and again. */
    private void request(Node node) {
        node.at(scheduler.now(), null, () -> {
            issue(node.run);
            scheduler.after(scheduler.between(100, 400), () -> request(node));
        });
    }

    /** A client of a hung process asks it for a few IDs, now and again, from when it goes on until it is killed. */
    private void requestHung(Run run) {
        run.node.at(scheduler.now(), run, () -> {
            issue(run);
            scheduler.after(scheduler.between(100, 400), () -> requestHung(run));
        });
    }

    private void issue(Run run) {
        if (run != null && run.service != null && !run.over && !run.service.isClosed()) {
            int count = (int) scheduler.between(1, 3);
            try {
                long[] ids = count == 1 ? new long[] {run.service.genId()} : run.service.genIds(count);
                for (long id : ids) {
                    Id fields = CODEC.expId(id);
                    long idTime = EPOCH + fields.time();
                    checker.issued(run.label, run.tenure(fields.machine()), id, fields.machine(), idTime,
                            scheduler.now() - START);
                }
            } catch (IllegalStateException e) {
                // the lease not held, the clock behind, a generator closed by a move to a new block
                refusals++;
            }
        }
    }

    /** The node's clock drifts, and now and then is stepped, within the bound. */
    private void clock(Node node) {
        if (scheduler.chance(0.05)) {
            node.clock.step(scheduler.between(-maxSkew / 2, maxSkew / 2));
            trace("n" + node.index + " clock stepped to " + node.clock.offset());
        } else {
            node.clock.drift(scheduler.between(-10, 10));
        }
        scheduler.after(scheduler.between(200, 1_000), () -> clock(node));
    }

    /** What befalls a node now and then: a pause, a cut from the store, a close, a crash. */
    private void trouble(Node node) {
        double roll = scheduler.random().nextDouble();
        Run run = node.run;
        if (roll < 0.25) {
            long pause = scheduler.between(lease / 2, 3 * lease);
            node.pausedUntil = Math.max(node.pausedUntil, scheduler.now() + pause);
            trace("n" + node.index + " pauses for " + pause + " ms");
        } else if (roll < 0.40) {
            long cut = scheduler.between(renewal, 2 * lease);
            node.cutOffUntil = Math.max(node.cutOffUntil, scheduler.now() + cut);
            trace("n" + node.index + " is cut off from the store for " + cut + " ms");
        } else if (roll < 0.55 && run != null) {
            close(run);
        } else if (roll < 0.65 && run != null) {
            trace(run.label + " crashes");
            endRun(run, scheduler.between(0, 2 * lease));
        } else if (roll < 0.75 && run != null && run.service != null && scenario.store() == Store.ZOOKEEPER) {
            hang(run);
        }
        scheduler.after(scheduler.between(1_000, 5_000), () -> trouble(node));
    }

    /**
     * The run's process hangs (a SIGSTOP) past its session while a new process of the same owner starts beside it
     * (a supervisor's restart); the hung one goes on later, issues what it may, and is killed. Only in ZooKeeper
     * scenarios, whose live node and process marks are what keep the two apart.
     */
    private void hang(Run run) {
        Node node = run.node;
        long hang = scheduler.between(lease, 3 * lease);
        run.pausedUntil = scheduler.now() + hang;
        node.run = null;
        node.hung.add(run);
        trace(run.label + " hangs for " + hang + " ms; a new process starts beside it");
        scheduler.after(scheduler.between(0, lease), () -> startRun(node));
        scheduler.after(hang, () -> requestHung(run));
        scheduler.after(hang + scheduler.between(lease, 3 * lease), () -> {
            if (!run.over) {
                trace(run.label + " is killed");
                run.over = true;
                run.fiber.close();
                node.hung.remove(run);
            }
        });
    }

    private void close(Run run) {
        run.node.at(scheduler.now(), run, () -> {
            if (run.fiber.busy()) {
                scheduler.after(5, () -> close(run));
                return;
            }
            trace(run.label + " closes");
            run.fiber.start(() -> {
                if (run.service != null) {
                    run.service.close();
                } else {
                    run.provider.close();
                }
            });
            endRun(run, scheduler.between(0, 2 * lease));
        });
    }

    /** The network's part of one store call of {@code run}; see {@link ModelBackend}. */
    <T> T call(Run run, String what, ModelBackend.Op<T> op) throws IOException {
        Fiber fiber = Fiber.current();
        boolean remote = fiber != null && fiber.owner() == run;
        if (remote) {
            run.sleep(delay());
        }
        if (run.node.cutOffUntil > scheduler.now()) {
            if (remote) {
                run.sleep(Math.min(lease, run.node.cutOffUntil - scheduler.now()));
            }
            trace(run.label + " " + what + ": store unreachable");
            throw new IOException(what + ": the store cannot be reached");
        }
        double fault = scheduler.random().nextDouble();
        if (fault < 0.02) {
            trace(run.label + " " + what + ": request lost");
            throw new IOException(what + ": no reply (the request was lost)");
        }
        T result = op.apply();
        trace(run.label + " " + what + " -> " + result);
        if (remote) {
            run.sleep(delay());
        }
        if (fault < 0.04) {
            T again = op.apply();
            trace(run.label + " " + what + " delivered twice -> " + again);
        }
        if (fault < 0.07 && fault >= 0.04) {
            trace(run.label + " " + what + ": reply lost");
            throw new IOException(what + ": no reply (the write may have landed)");
        }
        return result;
    }

    /** A network delay: mostly short, now and then long, rarely longer than the lease. */
    private long delay() {
        double roll = scheduler.random().nextDouble();
        if (roll < 0.01) {
            return scheduler.between(lease, 2 * lease);
        }
        if (roll < 0.06) {
            return scheduler.between(50, lease / 2);
        }
        return scheduler.between(1, 10);
    }
}
