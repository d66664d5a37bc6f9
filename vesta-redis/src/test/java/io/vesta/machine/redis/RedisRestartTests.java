package io.vesta.machine.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.test.lease.Issuer;
import io.vesta.test.lease.TcpRelay;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis restarted (or paused) under running nodes, on a {@code redis-server} of the test's own
 * ({@value RedisTestSupport#SERVER}), with the real clock and background heartbeats: the holder never issues an ID
 * that a node claiming after the restart also issues.
 */
class RedisRestartTests {

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.SEVERE);
    }

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration HEARTBEAT = Duration.ofMillis(500);
    private static final Duration SKEW = Duration.ofMillis(200);

    @TempDir
    Path dir;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<RedisClient> clients = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        clients.forEach(RedisClient::shutdown);
    }

    private RedisServerProcess server(boolean appendOnly) throws Exception {
        RedisServerProcess server = new RedisServerProcess(RedisTestSupport.serverBinary(), dir, appendOnly).start();
        toClose.add(server);
        return server;
    }

    private EmbeddedIdService node(RedisServerProcess server, String owner) {
        return node(server, server.uri(), owner);
    }

    private EmbeddedIdService node(RedisServerProcess server, RedisURI via, String owner) {
        return node(provider(via, owner));
    }

    private RedisMachineIdProvider provider(RedisURI via, String owner) {
        return provider(via, owner, UnaryOperator.identity());
    }

    /** A provider on the store {@code wrap} makes of the real one. */
    private RedisMachineIdProvider provider(RedisURI via, String owner, UnaryOperator<RedisLeaseStore> wrap) {
        RedisClient client = RedisClient.create(via);
        // Commands fail at once while the connection is down, rather than queue for the command timeout.
        client.setOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        clients.add(client);
        RedisMachineIdProvider provider = RedisMachineIdProvider.builder(client, via).key("vesta:machine-ids")
                .owner(owner).lease(LEASE).heartbeat(HEARTBEAT).maxClockSkew(SKEW).build(wrap);
        toClose.add(provider);
        return provider;
    }

    private EmbeddedIdService node(RedisMachineIdProvider provider) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY)
                .machineIdProvider(provider).timeSource(TimeSource.system()).build();
        toClose.add(service);
        return service;
    }

    @Test
    void aRestartThatLostEveryLeaseStopsTheHolderAndTheNextClaimStartsAfterItsLease() throws Exception {
        RedisServerProcess server = server(false);
        TcpRelay partition = new TcpRelay("127.0.0.1", server.uri().getPort());
        toClose.add(partition);
        EmbeddedIdService a = node(server, RedisTestSupport.uri(partition), "node-a");
        Issuer issuingA = new Issuer(a, "a");
        toClose.add(issuingA);
        // The server has just started, so A's first claim waits out a lease that a previous run might have held.
        RedisTestSupport.awaitTrue("A issues", () -> !issuingA.ids().isEmpty());

        // A is cut off from Redis, and Redis dies and comes back empty, as a server without persistence does. A goes
        // on issuing until its lease runs out: it cannot know.
        partition.cut();
        server.kill();
        server.start();

        // B claims on the empty server: it gets A's machine ID, and must start after every ID A may still issue.
        EmbeddedIdService b = node(server, server.uri(), "node-b");
        assertThat(b.machineId()).isEqualTo(a.machineId());
        Issuer issuingB = new Issuer(b, "b");
        toClose.add(issuingB);
        RedisTestSupport.awaitTrue("B issues once the leases that may have been lost have ended", () -> !issuingB.ids().isEmpty());

        // A reaches Redis again and learns the ID is no longer its own.
        partition.restore();
        // Read once: half a second later A claims another machine ID by itself, with a lease of its own.
        java.util.concurrent.atomic.AtomicReference<String> lostReason = new java.util.concurrent.atomic.AtomicReference<>();
        RedisTestSupport.awaitTrue("A finds its entry in other hands", () -> {
            lostReason.set(a.machineIdLease().lostReason());
            return lostReason.get() != null;
        });
        // Whatever the entry shows now, the server is another instance than the one A claimed on: A never renews there.
        assertThat(lostReason.get()).contains("another server instance than the one this node claimed on");
        issuingA.close();
        issuingB.close();

        Set<Long> idsOfA = issuingA.ids();
        Set<Long> idsOfB = issuingB.ids();
        Set<Long> both = new HashSet<>(idsOfA);
        both.retainAll(idsOfB);
        assertThat(both).as("IDs issued by both A and B under machine ID %d", b.machineId()).isEmpty();
        // Of A's IDs, those of the machine ID it lost to B (after that, A may issue under another one it claimed).
        long lastOfA = idsOfA.stream().filter(id -> a.expId(id).machine() == b.machineId()).mapToLong(Long::longValue)
                .max().orElseThrow();
        long firstOfB = idsOfB.stream().mapToLong(Long::longValue).min().orElseThrow();
        assertThat(b.expId(firstOfB).time()).isGreaterThan(a.expId(lastOfA).time());
        assertThat(b.machineIdSource()).contains("redis (hash vesta:machine-ids");
    }

    /**
     * Redis reports its uptime as whole seconds of now minus whole seconds of its start, so a server that started late
     * in a second reports a whole second just after the next one begins, when barely any time has passed. B's store
     * reports exactly what such a server reports: the start lies in the second the test launched it in, and nothing a
     * node wrote before the launch can be on the new server.
     */
    @Test
    void anUptimeThatRoundsUpNeverLetsTheNextClaimStartBeforeTheLostLeaseEnds() throws Exception {
        RedisServerProcess server = server(false);
        TcpRelay partition = new TcpRelay("127.0.0.1", server.uri().getPort());
        toClose.add(partition);
        RedisMachineIdProvider providerA = provider(RedisTestSupport.uri(partition), "node-a");
        EmbeddedIdService a = node(providerA);
        awaitIssuing(a);

        // A renews its lease and is cut off; Redis dies and comes back empty, launched late in a second (killing it
        // takes some 100 ms).
        Thread.sleep((1600 - System.currentTimeMillis() % 1000) % 1000);
        assertThat(providerA.heartbeat()).isTrue();
        partition.cut();
        server.kill();
        long launchedAt = System.currentTimeMillis();
        server.start();
        long heldUntilA = a.machineIdLease().heldUntil();
        long nextSecond = (Math.floorDiv(launchedAt, 1000) + 1) * 1000;
        Thread.sleep(Math.max(0, nextSecond - System.currentTimeMillis()));

        RedisMachineIdProvider providerB = provider(server.uri(), "node-b", store -> new RedisLeaseStore(store) {
            @Override
            Snapshot read() {
                Snapshot read = super.read();
                long launchedSecondsAgo = Math.floorDiv(System.currentTimeMillis(), 1000) - Math.floorDiv(launchedAt, 1000);
                return new Snapshot(read.runId(), Math.max(read.uptimeSeconds(), launchedSecondsAgo), read.promoted(),
                        read.store(), read.entries());
            }
        });
        EmbeddedIdService b = node(providerB);
        assertThat(b.machineId()).isEqualTo(a.machineId());
        // A's clock may run SKEW ahead of B's: B starts after A's last ID even then.
        assertThat(providerB.notBefore().orElseThrow())
                .as("B's IDs start after A's lease ends (until %d), A's clock %d ms ahead; launched at %d",
                        heldUntilA, SKEW.toMillis(), launchedAt)
                .isGreaterThanOrEqualTo(heldUntilA + SKEW.toMillis());
    }

    /**
     * A replica whose link to the primary was down lacks the hash; promoted after the primary died, it has been up far
     * longer than a lease, yet its uptime says nothing of the leases the primary held.
     */
    @Test
    void aPromotedReplicaThatLacksTheLeasesMakesTheNextClaimWaitOutTheLeaseWhateverItsUptime() throws Exception {
        RedisServerProcess primary = server(false);
        TcpRelay link = new TcpRelay("127.0.0.1", primary.uri().getPort());
        toClose.add(link);
        link.cut();
        RedisServerProcess replica = new RedisServerProcess(RedisTestSupport.serverBinary(), dir, false)
                .replicaOf(RedisTestSupport.uri(link).getPort()).start();
        toClose.add(replica);
        RedisMachineIdProvider providerA = provider(primary.uri(), "node-a");
        EmbeddedIdService a = node(providerA);
        awaitIssuing(a);
        RedisClient admin = RedisClient.create(replica.uri());
        clients.add(admin);
        try (StatefulRedisConnection<String, String> connection = admin.connect()) {
            // Up longer than a lease plus the skew, even counted down to whole seconds.
            long upSince = System.currentTimeMillis();
            RedisTestSupport.awaitTrue("the replica is up for 5 s", () -> uptimeSeconds(connection) >= 5);
            assertThat(System.currentTimeMillis() - upSince).isLessThan(20_000);
            primary.kill();
            connection.sync().replicaofNoOne();
        }
        assertTheNextClaimWaitsOutTheLease(a, replica.uri(), "B waits for the leases the replica may lack");
    }

    /**
     * A primary that became a replica without restarting (a failover while it was cut off) and is promoted back keeps
     * its run_id and the store mark it wrote, yet it lacks the renewals its replacement acknowledged after its link
     * dropped: the holder's entry there has expired while the holder renews on.
     */
    @Test
    void aPrimaryPromotedBackWithoutARestartMakesTheNextClaimWaitOutTheLease() throws Exception {
        RedisServerProcess first = server(false);
        RedisServerProcess second = new RedisServerProcess(RedisTestSupport.serverBinary(), dir, false)
                .replicaOf(first.uri().getPort()).start();
        toClose.add(second);
        TcpRelay front = new TcpRelay("127.0.0.1", first.uri().getPort());
        toClose.add(front);
        TcpRelay link = new TcpRelay("127.0.0.1", second.uri().getPort());
        toClose.add(link);
        RedisMachineIdProvider providerA = provider(RedisTestSupport.uri(front), "node-a");
        EmbeddedIdService a = node(providerA);
        awaitIssuing(a);
        RedisClient admin = RedisClient.create();
        clients.add(admin);
        try (StatefulRedisConnection<String, String> toFirst = admin.connect(first.uri());
                StatefulRedisConnection<String, String> toSecond = admin.connect(second.uri())) {
            String field = Long.toString(a.machineId());
            String onFirst = toFirst.sync().hget("vesta:machine-ids", field);
            RedisTestSupport.awaitTrue("the replica has A's entry", () -> toSecond.sync().hget("vesta:machine-ids", field) != null);

            // Failover: the second server is promoted, the first follows it through a link that then drops, and A's
            // renewals go to the second.
            toSecond.sync().replicaofNoOne();
            toFirst.sync().replicaof("127.0.0.1", RedisTestSupport.uri(link).getPort());
            RedisTestSupport.awaitTrue("the first server follows the second",
                    () -> toFirst.sync().info("replication").contains("master_link_status:up"));
            link.cut();
            front.redirect(second.uri().getPort());
            RedisTestSupport.awaitTrue("A renews on the second server and its entry on the first has expired", () -> {
                String entry = toFirst.sync().hget("vesta:machine-ids", field);
                return entry != null && Long.parseLong(entry.split("\\|")[1]) < System.currentTimeMillis()
                        && a.machineIdLease().heldUntil() > System.currentTimeMillis() + 1000;
            });
            assertThat(onFirst).isNotNull();

            // Failover back: the second server dies and the first, never restarted, is promoted again.
            front.cut();
            second.kill();
            toFirst.sync().replicaofNoOne();
        }
        // A lost machine ID 0 when it renewed on the promoted second server (another instance than its claim's) and
        // claimed another there; B claims 0 on the first server, promoted back, and waits out a lease and the skew.
        long claimedAt = System.currentTimeMillis();
        RedisMachineIdProvider providerB = provider(first.uri(), "node-b");
        EmbeddedIdService b = node(providerB);
        assertThat(b.machineId()).isZero();
        assertThat(providerB.notBefore().getAsLong()).as("B waits for the writes the first server may lack")
                .isGreaterThanOrEqualTo(claimedAt + LEASE.plus(SKEW).toMillis());
    }

    /** Node B claims on {@code uri}: the machine ID A held, and no ID before A's lease end plus the clock skew. */
    private void assertTheNextClaimWaitsOutTheLease(EmbeddedIdService a, RedisURI uri, String why) {
        long heldUntilA = a.machineIdLease().heldUntil();
        RedisMachineIdProvider providerB = provider(uri, "node-b");
        EmbeddedIdService b = node(providerB);
        assertThat(b.machineId()).isEqualTo(a.machineId());
        assertThat(providerB.notBefore().isPresent()).as(why).isTrue();
        assertThat(providerB.notBefore().getAsLong()).as("B's IDs start after A's lease ends (until %d), A's clock %d ms"
                + " ahead", heldUntilA, SKEW.toMillis()).isGreaterThanOrEqualTo(heldUntilA + SKEW.toMillis());
    }

    /** Waits until {@code a} issues: a claim after a store change may wait out a lease first. */
    private static void awaitIssuing(EmbeddedIdService a) throws InterruptedException {
        RedisTestSupport.awaitTrue("A issues", () -> {
            try {
                return a.genId() > 0;
            } catch (IllegalStateException e) {
                return false;
            }
        });
    }

    private static long uptimeSeconds(StatefulRedisConnection<String, String> connection) {
        for (String line : connection.sync().info("server").split("\r?\n")) {
            if (line.startsWith("uptime_in_seconds:")) {
                return Long.parseLong(line.substring("uptime_in_seconds:".length()).trim());
            }
        }
        throw new AssertionError("INFO server has no uptime_in_seconds");
    }

    @Test
    void aRestartThatKeptTheLeasesStillEndsTheHoldersAndEveryClaimWaitsOutTheLease() throws Exception {
        RedisServerProcess server = server(true);
        EmbeddedIdService a = node(server, "node-a");
        Issuer issuingA = new Issuer(a, "a");
        toClose.add(issuingA);
        RedisTestSupport.awaitTrue("A issues", () -> !issuingA.ids().isEmpty());
        String runIdBefore;
        RedisClient probe = RedisClient.create(server.uri());
        clients.add(probe);
        try (StatefulRedisConnection<String, String> connection = probe.connect()) {
            runIdBefore = RedisTestSupport.runId(connection);
        }

        long killedAt = System.currentTimeMillis();
        MachineIdLease leaseBefore = a.machineIdLease();
        server.kill();
        server.start();
        try (StatefulRedisConnection<String, String> connection = probe.connect()) {
            assertThat(RedisTestSupport.runId(connection)).as("a restart is a new server instance").isNotEqualTo(runIdBefore);
        }

        // A's entry survived with its token, but a server restored from disk may have forgotten a takeover of it
        // (RedisRollbackTests): A does not renew on another instance than its claim's, and claims again by itself.
        RedisTestSupport.awaitTrue("A loses its lease on the new instance", () -> leaseBefore.lostReason() != null);
        assertThat(leaseBefore.lostReason()).contains("another server instance than the one this node claimed on");

        // B cannot know whether the restart lost writes: it takes another machine ID and waits out a lease.
        long claimedAt = System.currentTimeMillis();
        EmbeddedIdService b = node(server, "node-b");
        assertThat(b.machineId()).isNotEqualTo(a.machineId());
        Issuer issuingB = new Issuer(b, "b");
        toClose.add(issuingB);
        RedisTestSupport.awaitTrue("B issues after the lease has passed", () -> !issuingB.ids().isEmpty());
        issuingB.close();
        issuingA.close();
        long firstOfB = issuingB.ids().stream().mapToLong(Long::longValue).min().orElseThrow();
        // The wait counts from the first claim on the new instance (A's, or B's if it came first).
        assertThat(b.transTime(b.expId(firstOfB).time()).toEpochMilli()).isGreaterThanOrEqualTo(killedAt + LEASE.plus(SKEW).toMillis());
        assertThat(claimedAt).isGreaterThanOrEqualTo(killedAt);
    }

    @Test
    void aPausedServerKeepsTheHolderIssuingUntilItsLeaseRunsOutAndItRecoversAfter() throws Exception {
        RedisServerProcess server = server(false);
        EmbeddedIdService a = node(server, "node-a");
        awaitIssuing(a);
        server.pause();
        try {
            long pausedAt = System.currentTimeMillis();
            long heldUntil = a.machineIdLease().heldUntil();
            assertThat(heldUntil).isLessThanOrEqualTo(pausedAt + LEASE.toMillis());
            RedisTestSupport.awaitTrue("A stops issuing when its lease runs out", () -> {
                try {
                    a.genId();
                    return false;
                } catch (MachineIdUnavailableException e) {
                    return e.getMessage().contains("its lease expired");
                }
            });
            assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(heldUntil);
        } finally {
            server.resume();
        }
        RedisTestSupport.awaitTrue("A issues again once a heartbeat gets through", () -> {
            try {
                return a.genId() > 0;
            } catch (MachineIdUnavailableException e) {
                return false;
            }
        });
        assertThat(a.machineIdLease().lostReason()).isNull();
    }
}
