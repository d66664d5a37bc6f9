package io.vesta.machine.zookeeper;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.machine.MachineIdRange;
import io.vesta.time.TimeSource;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Issue 22 item 4 on a real ZooKeeper (curator-test on 127.0.0.1): a node whose machine ID was reclaimed registers
 * again by itself and issues under the ID it gets, after that ID's previous holder.
 */
class ZooKeeperLeaseRegainTests {

    @TempDir
    Path dir;
    private TestingServer server;
    private String namespace;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1, null, "127.0.0.1"), true);
        namespace = "regain-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        server.close();
    }

    private ZooKeeperMachineIdProvider provider(String owner) {
        return provider(owner, new HeldReports());
    }

    private ZooKeeperMachineIdProvider provider(String owner, HeldReports reports) {
        ZooKeeperMachineIdProvider provider = ZooKeeperMachineIdProvider.builder(server.getConnectString()).timer(reports)
                .namespace(namespace).owner(owner).timeSource(TimeSource.system())
                .reportInterval(Duration.ofMillis(100)).reclaimAfter(Duration.ofSeconds(1))
                .connectionTimeout(Duration.ofSeconds(3)).cacheFile(dir.resolve(owner + ".machine-id")).build();
        toClose.add(provider);
        return provider;
    }

    private EmbeddedIdService service(ZooKeeperMachineIdProvider provider, MachineIdRange range) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineIdProvider(provider)
                .machineIdRange(range).build();
        toClose.add(service);
        return service;
    }

    /**
     * A range of two: A holds 0, X held 1 and closed. A goes silent for longer than reclaimAfter and C reclaims 0. A's
     * next report finds its node gone; it registers again and reclaims 1, X's, issuing after X's last ID and never
     * one of C's.
     */
    @Test
    void aNodeWhoseIdWasReclaimedRegistersAgainAndIssuesUnderTheIdItGets() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 1);
        HeldReports reportsOfA = new HeldReports();
        ZooKeeperMachineIdProvider providerA = provider("10.0.0.1:8080", reportsOfA);
        EmbeddedIdService a = service(providerA, range);
        assertThat(a.machineId()).isZero();
        long[] fromA = a.genIds(1_000);
        EmbeddedIdService x = service(provider("10.0.0.2:8080"), range);
        assertThat(x.machineId()).isEqualTo(1);
        long[] fromX = x.genIds(1_000);
        x.close();
        long lastOfX = Arrays.stream(fromX).map(id -> x.expId(id).time()).max().orElseThrow();

        EmbeddedIdService c;
        // Holding A's reports keeps its reporter from writing: A is silent, as in a long pause.
        synchronized (reportsOfA) {
            Thread.sleep(1_300);
            c = service(provider("10.0.0.3:8080"), range);
        }
        assertThat(c.machineId()).isZero();
        long[] fromC = c.genIds(1_000);

        List<Long> again = new ArrayList<>();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (again.isEmpty()) {
            try {
                again.addAll(Arrays.stream(a.genIds(500)).boxed().toList());
            } catch (IllegalStateException e) {
                if (System.nanoTime() > deadline) {
                    fail("Within 20 s: A issues again after its machine ID was reclaimed; last refusal: " + e.getMessage());
                }
                Thread.sleep(20);
            }
        }
        for (int i = 0; i < 20; i++) {
            again.addAll(Arrays.stream(a.genIds(500)).boxed().toList());
        }

        assertThat(a.machineId()).isEqualTo(1);
        assertThat(a.machineIdSource()).endsWith(", reclaimed from '10.0.0.2:8080')");
        assertThat(again).hasSize(10_500).doesNotHaveDuplicates()
                .allSatisfy(id -> assertThat(a.expId(id).machine()).isEqualTo(1));
        assertThat(again.stream().mapToLong(id -> a.expId(id).time()).min().orElseThrow()).isGreaterThan(lastOfX);
        Set<Long> before = new HashSet<>();
        for (long[] ids : List.of(fromA, fromX, fromC)) {
            Arrays.stream(ids).forEach(before::add);
        }
        assertThat(again).as("IDs A issued again that A, X or C had issued").noneMatch(before::contains);
        assertThat(c.genId()).as("C keeps the ID it reclaimed").isPositive();
    }
}
