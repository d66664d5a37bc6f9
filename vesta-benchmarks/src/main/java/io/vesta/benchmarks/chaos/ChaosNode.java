package io.vesta.benchmarks.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisURI;
import io.vesta.ClockMovedBackwardsException;
import io.vesta.EmbeddedIdService;
import io.vesta.EmbeddedIdServiceBuilder;
import io.vesta.IdType;
import io.vesta.layout.IdLayout;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.etcd.EtcdMachineIdProvider;
import io.vesta.machine.redis.RedisMachineIdProvider;
import io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One node of {@link LeaseChaosHarness}, in a JVM of its own: acquires a machine ID from the database lease
 * table, ZooKeeper, Redis or etcd, issues MIN_GRANULARITY IDs (1 ms units, the layout on which an overlap of two holders
 * shows up soonest as a duplicate) and appends each to its own {@link ChaosLog} file. When the service refuses
 * (lease ended or lost, clock) it closes it and builds a new one, as an application restarting its generator
 * would. Started only by the harness; it stops by itself at {@code --deadline} and halts if the harness is gone.
 *
 * <p>With {@code --fallback=ID} (the harness's {@code --fallback}) the service has that fallback machine ID and a time
 * store in {@code --marks-dir}: it switches to the fallback by itself when it cannot hold a leased machine ID, and back
 * when it can. The node keeps the service across those switches and starts a new span in its file at each (an
 * acquisition record under the same attempt, with no {@code notBefore} and the time the node saw the switch).
 */
public final class ChaosNode {

    /** A flush at least this often: IDs lost in the buffer on SIGKILL are fine, but keep the loss small. */
    private static final long FLUSH_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long FLUSH_IDS = 4096;

    private final Map<String, String> options;
    private final int slot;
    private final int ownerSlot;
    private final int run;
    private final String backend;
    private final String owner;
    private final long deadline;
    private final long maxIds;
    private final double rate;
    private final long graceMillis;
    private final MachineIdRange range;
    private final SplittableRandom random;
    /** The fallback machine ID, or null without one. */
    private final Long fallback;
    private HikariDataSource dataSource;

    private ChaosNode(Map<String, String> options) {
        this.options = options;
        this.slot = Integer.parseInt(required(options, "slot"));
        this.ownerSlot = Integer.parseInt(options.getOrDefault("owner-slot", String.valueOf(slot)));
        this.run = Integer.parseInt(required(options, "run"));
        this.backend = required(options, "backend");
        this.owner = required(options, "owner");
        this.deadline = Long.parseLong(required(options, "deadline"));
        this.maxIds = Long.parseLong(required(options, "max-ids"));
        this.rate = Double.parseDouble(required(options, "rate"));
        this.graceMillis = Long.parseLong(required(options, "grace-ms"));
        this.range = new MachineIdRange(Long.parseLong(required(options, "range-min")),
                Long.parseLong(required(options, "range-max")));
        this.random = new SplittableRandom(Long.parseLong(required(options, "seed")));
        this.fallback = options.containsKey("fallback") ? Long.valueOf(options.get("fallback")) : null;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = LeaseChaosHarness.parse(args);
        long parentPid = Long.parseLong(required(options, "parent-pid"));
        long deadline = Long.parseLong(required(options, "deadline"));
        watchdog(parentPid, deadline + 30_000);
        int status = 0;
        try {
            new ChaosNode(options).run(Path.of(required(options, "out")));
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        }
        // Curator's and Hikari's threads must not keep a finished node alive.
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(status);
    }

    /** A node outlives neither the harness (even one killed with SIGKILL) nor its deadline by much. */
    private static void watchdog(long parentPid, long hardDeadline) {
        Thread thread = new Thread(() -> {
            while (true) {
                boolean parentAlive = ProcessHandle.of(parentPid).map(ProcessHandle::isAlive).orElse(false);
                if (!parentAlive || System.currentTimeMillis() > hardDeadline) {
                    System.err.println("chaos node: " + (parentAlive ? "past its hard deadline" : "harness is gone") + ", halting");
                    Runtime.getRuntime().halt(3);
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "chaos-watchdog");
        thread.setDaemon(true);
        thread.start();
    }

    private void run(Path out) throws Exception {
        if (backend.equals("db")) {
            dataSource = dataSource();
        }
        long issued = 0;
        int attempt = 0;
        Pacer pacer = new Pacer(rate);
        try (ChaosLog.Writer log = ChaosLog.Writer.open(out)) {
            while (System.currentTimeMillis() < deadline && issued < maxIds) {
                attempt++;
                long buildStartedAt = System.currentTimeMillis();
                RecordingProvider provider = null;
                EmbeddedIdService service;
                try {
                    provider = new RecordingProvider(newProvider());
                    EmbeddedIdServiceBuilder builder = EmbeddedIdService.builder()
                            .type(IdType.MIN_GRANULARITY)
                            .machineIdProvider(provider)
                            .machineIdRange(range);
                    if (fallback != null) {
                        builder.machineIdFallback(fallback).machineIdFallbackCheckInterval(Duration.ofMillis(100))
                                .timestampStoreDirectory(Path.of(required(options, "marks-dir")));
                    }
                    service = builder.build();
                } catch (RuntimeException e) {
                    // build() does not close a provider whose acquire threw: a ZooKeeper one would leak its client.
                    if (provider != null) {
                        closeQuietly(provider);
                    }
                    long kind = e instanceof MachineIdUnavailableException
                            ? (String.valueOf(e.getMessage()).contains("No machine ID is free")
                                    ? ChaosLog.REFUSED_RANGE_FULL : ChaosLog.REFUSED_UNAVAILABLE)
                            : ChaosLog.REFUSED_OTHER;
                    log.record(ChaosLog.REFUSAL, slot, System.currentTimeMillis(), kind);
                    if (kind != ChaosLog.REFUSED_RANGE_FULL) {
                        System.err.println("refused: " + e);
                    }
                    // Short, so that a waiting node races for a freed ID as soon as its lease ends; longer for
                    // ZooKeeper, where every attempt is a new session and a sequential node created and deleted.
                    pause(backend.equals("db") ? 5 + random.nextInt(30) : 50 + random.nextInt(100));
                    continue;
                }
                long machine = service.machineId();
                // With a fallback, the service may issue under another machine ID than the one its acquire returned
                // (its fallback, or a block claimed again since): then the provider's mark, time and generation are not
                // of it, and it is recorded as a switch is.
                boolean switched = fallback != null && machine != provider.acquiredId;
                OptionalLong notBefore = switched ? OptionalLong.empty() : provider.notBefore();
                log.record(ChaosLog.ACQUIRE, new ChaosLog.Acquisition(slot, ownerSlot, run, attempt, machine,
                        notBefore.isPresent() ? notBefore.getAsLong() : ChaosLog.NONE, buildStartedAt,
                        switched ? System.currentTimeMillis() : provider.acquiredAt, switched ? -1 : provider.generation,
                        System.currentTimeMillis()).fields());
                System.err.println("attempt " + attempt + ": machine ID " + machine + " from "
                        + service.machineIdSource() + (notBefore.isPresent() ? ", notBefore " + notBefore.getAsLong() : ""));
                try {
                    issued = issue(service, log, pacer, issued, new Span(attempt, buildStartedAt, machine));
                } catch (MachineIdUnavailableException | ClockMovedBackwardsException e) {
                    MachineIdLease lease = service.machineIdLease();
                    long kind = e instanceof ClockMovedBackwardsException ? ChaosLog.LOSS_CLOCK
                            : e instanceof Regained || lease.lostReason() != null ? ChaosLog.LOSS_REVOKED
                            : ChaosLog.LOSS_EXPIRED;
                    log.record(ChaosLog.LOSS, System.currentTimeMillis(),
                            e instanceof Regained regained ? regained.held : service.machineId(), kind);
                    System.err.println("attempt " + attempt + " stopped: " + e.getMessage());
                } finally {
                    log.flush();
                    closeQuietly(service);
                }
                pause(5 + random.nextInt(30));
            }
            log.record(ChaosLog.END, System.currentTimeMillis());
        } finally {
            if (dataSource != null) {
                dataSource.close();
            }
        }
    }

    /**
     * Issues until the deadline or the service refuses for good. A lease that merely ran out (not revoked) is
     * waited for, up to {@code graceMillis}, on the same service: that is what an application does, since the
     * provider keeps renewing by itself and the documented behaviour is to carry on once a renewal succeeds.
     * Closing at the first refusal instead would hide any renewal that lands after a takeover.
     */
    private long issue(EmbeddedIdService service, ChaosLog.Writer log, Pacer pacer, long issued, Span span)
            throws IOException {
        long outageSince = -1;
        // A service that lost its machine ID claims another by itself; the checker orders the holders of one machine
        // ID by their acquisitions, so a node ends its attempt there and acquires anew, as a restarted node would.
        // With a fallback, the switches are the point: the attempt goes on, in a new span.
        long held = service.machineId();
        while (issued < maxIds) {
            long now = System.currentTimeMillis();
            if (now >= deadline) {
                return issued;
            }
            try {
                if (fallback == null && service.machineId() != held) {
                    throw regained(service, held);
                }
                // Mostly single IDs, some batches: genIds reserves a run of a unit at once, a path of its own.
                if (random.nextInt(16) == 0) {
                    long[] ids = service.genIds(2 + random.nextInt(63));
                    if (fallback != null) {
                        for (long id : ids) {
                            span.log(log, id);
                        }
                        issued += ids.length;
                    } else if ((ids[0] & IdLayout.MAX_MACHINE) != held) {
                        // Made under the machine ID claimed after the loss, which this attempt never acquired.
                        throw regained(service, held);
                    } else {
                        log.ids(ids);
                        issued += ids.length;
                    }
                } else {
                    long id = service.genId();
                    if (fallback != null) {
                        span.log(log, id);
                    } else if ((id & IdLayout.MAX_MACHINE) != held) {
                        throw regained(service, held);
                    } else {
                        log.id(id);
                    }
                    issued++;
                }
            } catch (MachineIdUnavailableException e) {
                MachineIdLease lease = service.machineIdLease();
                if (e instanceof Regained || lease.lostReason() != null) {
                    throw e;
                }
                if (outageSince < 0) {
                    outageSince = now;
                    log.flush();
                } else if (now - outageSince > graceMillis) {
                    throw e;
                }
                pause(1 + random.nextInt(3));
                continue;
            }
            if (outageSince >= 0) {
                log.record(ChaosLog.RESUME, System.currentTimeMillis(), service.machineId());
                System.err.println("lease held again after " + (System.currentTimeMillis() - outageSince) + " ms");
                outageSince = -1;
            }
            log.maybeFlush(FLUSH_IDS, FLUSH_NANOS);
            pacer.pace(issued);
        }
        return issued;
    }

    /**
     * The machine ID a service with a fallback issues under now: an ID under another one starts a new span, an
     * acquisition record with the same attempt. The checker may order it after another holder only by the service's
     * build (every claim of the service came after it), and bounds an earlier holder by the time the switch was seen
     * (no earlier than the first ID under it, so no earlier than the claim): both can only make it compare fewer pairs.
     */
    private final class Span {
        private final int attempt;
        private final long buildStartedAt;
        private long machine;

        Span(int attempt, long buildStartedAt, long machine) {
            this.attempt = attempt;
            this.buildStartedAt = buildStartedAt;
            this.machine = machine;
        }

        void log(ChaosLog.Writer log, long id) throws IOException {
            long of = id & IdLayout.MAX_MACHINE;
            if (of != machine) {
                long now = System.currentTimeMillis();
                log.record(ChaosLog.ACQUIRE, new ChaosLog.Acquisition(slot, ownerSlot, run, attempt, of, ChaosLog.NONE,
                        buildStartedAt, now, -1, now).fields());
                System.err.println("attempt " + attempt + ": switched from machine ID " + machine + " to " + of
                        + (of == fallback ? " (the fallback)" : " (leased)"));
                machine = of;
            }
            log.id(id);
        }
    }

    private static Regained regained(EmbeddedIdService service, long held) {
        return new Regained(held, service.machineId());
    }

    /** The service lost {@code held} and claimed another machine ID by itself: the attempt ends as after a loss. */
    private static final class Regained extends MachineIdUnavailableException {

        final long held;

        Regained(long held, long now) {
            super("machine ID " + held + " was lost and the service claimed machine ID " + now + " by itself");
            this.held = held;
        }
    }

    private MachineIdProvider newProvider() {
        if (backend.equals("db")) {
            long leaseMillis = Long.parseLong(required(options, "lease-ms"));
            return DbMachineIdProvider.builder(dataSource)
                    .table(required(options, "table"))
                    .owner(owner)
                    .lease(Duration.ofMillis(leaseMillis))
                    .heartbeat(Duration.ofMillis(Long.parseLong(required(options, "heartbeat-ms"))))
                    .build();
        }
        if (backend.equals("redis")) {
            RedisURI uri = RedisURI.create(required(options, "redis-url"));
            // CLIENT LIST shows the name: how the harness finds this node's connection to kill.
            uri.setClientName(required(options, "app-name"));
            return RedisMachineIdProvider.builder(uri)
                    .key(required(options, "key"))
                    .owner(owner)
                    .lease(Duration.ofMillis(Long.parseLong(required(options, "lease-ms"))))
                    .heartbeat(Duration.ofMillis(Long.parseLong(required(options, "heartbeat-ms"))))
                    .maxClockSkew(Duration.ofMillis(Long.parseLong(required(options, "max-clock-skew-ms"))))
                    .build();
        }
        if (backend.equals("etcd")) {
            List<URI> endpoints = Arrays.stream(required(options, "etcd-endpoints").split(",")).map(URI::create).toList();
            return EtcdMachineIdProvider.builder(endpoints)
                    .prefix(required(options, "prefix"))
                    .owner(owner)
                    .lease(Duration.ofMillis(Long.parseLong(required(options, "lease-ms"))))
                    .heartbeat(Duration.ofMillis(Long.parseLong(required(options, "heartbeat-ms"))))
                    .maxClockSkew(Duration.ofMillis(Long.parseLong(required(options, "max-clock-skew-ms"))))
                    .build();
        }
        ZooKeeperMachineIdProvider.Builder builder = ZooKeeperMachineIdProvider.builder(required(options, "connect"))
                .namespace(required(options, "namespace"))
                .owner(owner)
                .reportInterval(Duration.ofMillis(Long.parseLong(required(options, "report-ms"))))
                .reclaimAfter(Duration.ofMillis(Long.parseLong(required(options, "reclaim-ms"))))
                .connectionTimeout(Duration.ofSeconds(3))
                .cacheFile(Path.of(required(options, "cache-file")));
        String lease = options.get("zk-lease-ms");
        if (lease != null) {
            builder.lease(Duration.ofMillis(Long.parseLong(lease)));
        }
        return builder.build();
    }

    private HikariDataSource dataSource() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(required(options, "jdbc-url"));
        // pg_stat_activity.application_name: how the harness finds this node's backends to terminate.
        config.addDataSourceProperty("ApplicationName", required(options, "app-name"));
        config.addDataSourceProperty("connectTimeout", "2");
        config.addDataSourceProperty("socketTimeout", "5");
        config.setPoolName("chaos-" + slot);
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(1000);
        config.setValidationTimeout(500);
        // Start even while the database refuses connections: the provider's own failure handling is under test.
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    private static void closeQuietly(EmbeddedIdService service) {
        try {
            service.close();
        } catch (RuntimeException e) {
            System.err.println("close: " + e);
        }
    }

    private static void closeQuietly(MachineIdProvider provider) {
        try {
            provider.close();
        } catch (RuntimeException e) {
            System.err.println("close: " + e);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    /**
     * Holds a node to about {@code rate} IDs a second so that the checker's arrays stay bounded, while still
     * issuing in nearly every millisecond: what makes two overlapping holders collide. A long pause (SIGSTOP)
     * does not turn into a burst afterwards.
     */
    private static final class Pacer {
        private final double perNano;
        private final long maxLag;
        private long startNanos = System.nanoTime();
        private long base;

        Pacer(double rate) {
            this.perNano = rate / 1e9;
            this.maxLag = Math.max(1, (long) (rate / 50));
        }

        void pace(long issued) {
            long allowed = base + (long) ((System.nanoTime() - startNanos) * perNano);
            if (allowed - issued > maxLag) {
                base = issued;
                startNanos = System.nanoTime();
                return;
            }
            if (issued > allowed) {
                long nanos = (long) ((issued - allowed) / perNano);
                LockSupport.parkNanos(Math.min(nanos, 1_000_000));
            }
        }
    }

    /**
     * The real provider, plus when its acquire returned and (for the table) the generation it holds: the
     * checker orders the holders of a machine ID by them. Only public API: MachineIdProvider is an interface.
     */
    private final class RecordingProvider implements MachineIdProvider {
        private final MachineIdProvider delegate;
        volatile long acquiredAt = ChaosLog.NONE;
        volatile long generation = -1;
        /** What the latest acquire returned (-1 before one). Set last: once it is read, the two above are of it. */
        volatile long acquiredId = -1;

        RecordingProvider(MachineIdProvider delegate) {
            this.delegate = delegate;
        }

        @Override
        public long acquire(MachineIdRange range, int blockSize) {
            long id = delegate.acquire(range, blockSize);
            acquiredAt = System.currentTimeMillis();
            if (delegate instanceof DbMachineIdProvider db) {
                generation = generationOf(db, id);
            }
            acquiredId = id;
            return id;
        }

        /**
         * The row's generation if it still names this owner: between our commit and this read only a takeover
         * by another owner can change the row, and this slot's earlier processes are dead, so it is ours.
         */
        private long generationOf(DbMachineIdProvider db, long id) {
            for (int tries = 0; tries < 3; tries++) {
                try (Connection connection = dataSource.getConnection();
                     PreparedStatement select = connection.prepareStatement(
                             "SELECT owner, generation FROM " + db.table() + " WHERE machine_id = ?")) {
                    select.setQueryTimeout(2);
                    select.setLong(1, id);
                    try (ResultSet rs = select.executeQuery()) {
                        if (rs.next() && rs.getString(1).equals(db.owner())) {
                            return rs.getLong(2);
                        }
                        return -1;
                    }
                } catch (SQLException e) {
                    // a terminated backend: the pool hands out a fresh connection next time
                }
            }
            return -1;
        }

        @Override
        public String describe() {
            return delegate.describe();
        }

        @Override
        public MachineIdLease lease() {
            return delegate.lease();
        }

        @Override
        public OptionalLong notBefore() {
            return delegate.notBefore();
        }

        // With a fallback, the engine follows the real provider's claims after a loss through these; without one the
        // harness keeps the wrapper it always ran (a loss ends the attempt).
        @Override
        public Optional<MachineIdGrant> grant() {
            return fallback != null ? delegate.grant() : MachineIdProvider.super.grant();
        }

        @Override
        public void onRegain(Runnable listener) {
            if (fallback != null) {
                delegate.onRegain(listener);
            }
        }

        @Override
        public Optional<MachineIdLeases> leases() {
            return fallback != null ? delegate.leases() : MachineIdProvider.super.leases();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
