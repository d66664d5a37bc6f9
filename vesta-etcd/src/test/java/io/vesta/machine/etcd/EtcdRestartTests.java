package io.vesta.machine.etcd;

import io.etcd.jetcd.Client;
import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.machine.MachineIdRange;
import io.vesta.test.Await;
import io.vesta.test.etcd.EtcdCluster;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A three-member etcd cluster of the test's own under three issuing nodes, with the real clock and background
 * heartbeats: the leader killed and restarted, a member paused, the quorum lost past the leases. No ID is issued
 * twice, and no node issues an ID timed after the end of a lease it could have held.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdRestartTests {

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.SEVERE);
    }

    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration HEARTBEAT = Duration.ofSeconds(2);
    private static final Duration SKEW = Duration.ofMillis(200);

    @TempDir
    Path dir;

    private EtcdCluster etcd;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final Map<String, EmbeddedIdService> services = new HashMap<>();
    private final Map<String, Issuer> issuers = new HashMap<>();
    private final String prefix = EtcdTestSupport.prefix("restart");

    @BeforeEach
    void start() throws Exception {
        etcd = EtcdCluster.start(dir, 3);
        try (Client admin = Client.builder().endpoints(etcd.endpoints()).build()) {
            EtcdTestSupport.markStore(admin, prefix);
        }
        for (String owner : List.of("node-a", "node-b", "node-c")) {
            EtcdMachineIdProvider provider = EtcdMachineIdProvider.builder(etcd.endpoints()).prefix(prefix)
                    .owner(owner).lease(LEASE).heartbeat(HEARTBEAT).maxClockSkew(SKEW).build();
            toClose.add(provider);
            EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY)
                    .machineIdRange(new MachineIdRange(0, 7)).machineIdProvider(provider)
                    .timeSource(TimeSource.system()).timestampStoreDirectory(dir.resolve(owner)).build();
            toClose.add(service);
            services.put(owner, service);
            Issuer issuer = new Issuer(service, owner);
            toClose.add(issuer);
            issuers.put(owner, issuer);
        }
        awaitEveryNodeIssuing("at the start");
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    private void awaitEveryNodeIssuing(String when) throws InterruptedException {
        Map<String, Integer> before = counts();
        for (String owner : issuers.keySet()) {
            Await.until(owner + " issues " + when, Duration.ofSeconds(30),
                    () -> issuers.get(owner).count() > before.get(owner) + 100);
        }
    }

    private Map<String, Integer> counts() {
        Map<String, Integer> counts = new HashMap<>();
        issuers.forEach((owner, issuer) -> counts.put(owner, issuer.count()));
        return counts;
    }

    /** Stops the issuers; no ID issued twice. */
    private void noIdTwice() throws Exception {
        for (Issuer issuer : issuers.values()) {
            issuer.close();
        }
        Map<Long, String> all = new HashMap<>();
        issuers.forEach((owner, issuer) -> {
            for (long id : issuer.ids()) {
                assertThat(all.put(id, owner)).as("ID %d issued by %s", id, owner).isNull();
            }
        });
        assertThat(all).hasSizeGreaterThan(3000);
    }

    @Test
    void theLeaderKilledAndRestartedTwiceNeverStopsTheNodesNorRepeatsAnId() throws Exception {
        for (int round = 0; round < 2; round++) {
            int leader = etcd.leader();
            assertThat(leader).as("the leader").isNotNegative();
            etcd.kill(leader);
            Thread.sleep(1500);
            awaitEveryNodeIssuing("with the leader " + etcd.name(leader) + " killed");
            etcd.start(leader);
            etcd.awaitReady();
            awaitEveryNodeIssuing("with " + etcd.name(leader) + " back");
        }
        noIdTwice();
    }

    @Test
    void thePausedLeaderIsReplacedAndRejoins() throws Exception {
        int leader = etcd.leader();
        etcd.pause(leader);
        Thread.sleep(3000);
        awaitEveryNodeIssuing("with the leader " + etcd.name(leader) + " paused");
        etcd.resume(leader);
        etcd.awaitReady();
        awaitEveryNodeIssuing("with " + etcd.name(leader) + " resumed");
        noIdTwice();
    }

    @Test
    void aQuorumLostPastTheLeasesStopsEveryNodeUntilItIsBack() throws Exception {
        etcd.kill(1);
        etcd.kill(2);
        long lost = System.currentTimeMillis();
        // No renewal can land from now on: every lease ends within one lease of now, and the nodes stop issuing.
        Thread.sleep(LEASE.toMillis() + 1000);
        Map<String, Integer> stopped = counts();
        Thread.sleep(1000);
        assertThat(counts()).as("IDs issued after every lease ran out").isEqualTo(stopped);
        services.values().forEach(s -> assertThat(s.machineIdLease().isHeldAt(System.currentTimeMillis())).isFalse());
        long back = System.currentTimeMillis();
        etcd.start(1);
        etcd.start(2);
        etcd.awaitReady();
        awaitEveryNodeIssuing("once the quorum is back");
        noIdTwice();
        for (Map.Entry<String, Issuer> issuer : issuers.entrySet()) {
            EmbeddedIdService service = services.get(issuer.getKey());
            long inGap = issuer.getValue().ids().stream()
                    .mapToLong(id -> service.transTime(service.expId(id).time()).toEpochMilli())
                    .filter(t -> t > lost + LEASE.toMillis() && t < back).count();
            assertThat(inGap).as("IDs of %s timed after the last lease it could hold ended, before the quorum was back",
                    issuer.getKey()).isZero();
        }
    }
}
