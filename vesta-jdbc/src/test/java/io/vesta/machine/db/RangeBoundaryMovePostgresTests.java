package io.vesta.machine.db;

import com.zaxxer.hikari.HikariDataSource;
import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.test.Await;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Moving the boundary between the embedded range and the server range on PostgreSQL while nodes of both kinds run,
 * issue IDs and restart with the new ranges, as docs/machine-ids.md ("Moving the range boundary") tells an operator
 * to: embedded nodes count up from the bottom, servers down from the top, so the boundary can move without stranding
 * either; a node never takes a machine ID another node holds a live lease on, whichever range that node runs with; a
 * node whose new range no longer holds its block moves to one of its new range. The ranges here are 0-15 rather than
 * 0-1023, so that a handful of nodes fills them. One table of this test's own, shared by every node as the
 * deployment's one store, dropped afterwards.
 */
class RangeBoundaryMovePostgresTests {

    // One line per lease taken is right for a node, too much for the dozens here. Held in a field:
    // java.util.logging forgets the level of a logger nobody references.
    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.WARNING);
    }

    private String table;
    private HikariDataSource pool;
    private final Map<String, Node> running = new LinkedHashMap<>();
    /** Every run that has ended: its configured range and the IDs it issued. */
    private final List<Node> ended = new ArrayList<>();
    private int mostRunning;

    @BeforeEach
    void createTable() throws Exception {
        table = TestDatabase.uniqueName("vesta_boundary");
        pool = TestDatabase.POSTGRESQL.pool(8);
        try (DbMachineIdProvider schema = DbMachineIdProvider.builder(pool).table(table).owner("schema").build()) {
            schema.initializeSchema();
        }
    }

    @AfterEach
    void dropTable() throws Exception {
        try {
            for (Node node : List.copyOf(running.values())) {
                stop(node.owner);
            }
        } finally {
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + table);
            } finally {
                pool.close();
            }
        }
    }

    @Test
    void theBoundaryMovesAndBackWhileNodesRunAndRestartAndNoIdRepeats() throws Exception {
        // Boundary at 8: embedded nodes 0-7 from the bottom up, servers 8-15 from the top down.
        assertThat(start("e0", GenMethod.EMBEDDED, 0, 7)).isEqualTo(0);
        assertThat(start("e1", GenMethod.EMBEDDED, 0, 7)).isEqualTo(1);
        assertThat(start("e2", GenMethod.EMBEDDED, 0, 7)).isEqualTo(2);
        assertThat(start("s0", GenMethod.CENTRAL_SERVER, 8, 15)).as("the first server gets the top").isEqualTo(15);
        assertThat(start("s1", GenMethod.CENTRAL_SERVER, 8, 15)).isEqualTo(14);
        assertThat(start("s2", GenMethod.REST, 8, 15)).isEqualTo(13);

        // The embedded range widened to 0-13 before the servers were narrowed (the wrong order, still safe): the
        // restarted nodes keep their IDs, new ones fill the free IDs up to 12, and 13, which s2 holds live, is not
        // taken: the next embedded node is refused, naming the range.
        assertThat(restart("e0", 0, 13)).as("its own ID back").isEqualTo(0);
        assertThat(restart("e1", 0, 13)).isEqualTo(1);
        for (int n = 3; n <= 12; n++) {
            assertThat(start("e" + n, GenMethod.EMBEDDED, 0, 13)).isEqualTo(n);
        }
        assertThatThrownBy(() -> start("e13", GenMethod.EMBEDDED, 0, 13))
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageContaining("No machine ID is free in range 0-13");

        // The server range narrowed to 13-15: the servers restart on their own IDs, and a fourth finds none free.
        assertThat(restart("s0", 13, 15)).isEqualTo(15);
        assertThat(restart("s2", 13, 15)).isEqualTo(13);
        assertThat(restart("s1", 13, 15)).isEqualTo(14);
        assertThatThrownBy(() -> start("s3", GenMethod.CENTRAL_SERVER, 13, 15))
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageContaining("No machine ID is free in range 13-15");
        assertThat(restart("e5", 0, 12)).as("a restart with the embedded range's final 0-12").isEqualTo(5);

        // And back: embedded 0-7, servers 8-15. Two embedded nodes are retired to make room; the nodes on 8 and 9
        // restart outside their old IDs and move into their new range, onto the IDs the retired nodes issued under.
        stop("e3");
        stop("e4");
        assertThat(restart("e8", 0, 7)).as("8 is outside 0-7: the first free ID of the new range").isEqualTo(3);
        assertThat(restart("e9", 0, 7)).isEqualTo(4);
        assertThatThrownBy(() -> restart("e10", 0, 7)).as("0-7 is full: e10 cannot move until a node is retired")
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageContaining("No machine ID is free in range 0-7");
        stop("e11");
        stop("e12");
        for (String server : List.of("s0", "s1", "s2")) {
            restart(server, 8, 15);
        }
        assertThat(running.get("s0").machineId).as("servers stay at the top through every move").isEqualTo(15);
        assertThat(start("s3", GenMethod.CENTRAL_SERVER, 8, 15)).as("12, released by e12").isEqualTo(12);
        assertThat(start("s4", GenMethod.REST, 8, 15)).as("11, released by e11; 10 was e10's").isEqualTo(11);
        assertThat(restart("e0", 0, 7)).isEqualTo(0);

        for (Node node : List.copyOf(running.values())) {
            stop(node.owner);
        }
        Set<Long> ids = new HashSet<>();
        long issued = 0;
        for (Node run : ended) {
            assertThat(run.range.contains(run.machineId)).as("%s on %s", run, run.range).isTrue();
            for (long id : run.ids()) {
                assertThat(run.service.expId(id).machine()).as("an ID of %s", run).isEqualTo(run.machineId);
                assertThat(ids.add(id)).as("ID %d of %s issued twice", id, run).isTrue();
            }
            issued += run.ids().length;
        }
        assertThat(ended).as("runs").hasSize(30);
        assertThat(issued).as("IDs issued across %d runs", ended.size()).isGreaterThan(ended.size() * 10L);
        System.out.println("Moved the range boundary and back: " + ended.size() + " runs, up to " + mostRunning
                + " nodes at once, issued " + issued + " IDs, none twice, each in its node's range");
    }

    /** Starts node {@code owner} of {@code kind} on range {@code [min, max]}, issuing until stopped: its machine ID. */
    private long start(String owner, GenMethod kind, long min, long max) {
        DbMachineIdProvider provider = DbMachineIdProvider.builder(pool).table(table).owner(owner).build();
        EmbeddedIdService service;
        try {
            // The bounds as the settings give them: the builder gives servers the order from the top down.
            service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).genMethod(kind).machineIdRange(min, max)
                    .machineIdProvider(provider).build();
        } catch (RuntimeException e) {
            provider.close();
            throw e;
        }
        Node node = new Node(owner, kind, new MachineIdRange(min, max), service);
        running.put(owner, node);
        mostRunning = Math.max(mostRunning, running.size());
        node.issuer.start();
        return node.machineId;
    }

    /**
     * Stops node {@code owner} and starts it again, of the same kind, on range {@code [min, max]}, once every running
     * node has issued IDs since the last change: each step happens while the others issue.
     */
    private long restart(String owner, long min, long max) throws InterruptedException {
        GenMethod kind = running.get(owner).kind;
        stop(owner);
        return start(owner, kind, min, max);
    }

    /** Stops node {@code owner} once every running node has issued IDs since the last change. */
    private void stop(String owner) throws InterruptedException {
        List<Node> nodes = List.copyOf(running.values());
        long[] before = nodes.stream().mapToLong(n -> n.count).toArray();
        Await.until("every running node issuing", Duration.ofMinutes(1), () -> {
            for (int i = 0; i < nodes.size(); i++) {
                if (nodes.get(i).count < before[i] + 50 && nodes.get(i).failure.get() == null) {
                    return false;
                }
            }
            return true;
        });
        Node node = running.remove(owner);
        node.stop();
        ended.add(node);
    }

    /** One run of a node: it issues IDs on a thread of its own until stopped, and keeps them. */
    private static final class Node {
        final String owner;
        final GenMethod kind;
        final MachineIdRange range;
        final EmbeddedIdService service;
        final long machineId;
        final Thread issuer;
        private volatile boolean stopping;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private long[] ids = new long[1024];
        /** How many of {@link #ids} are written: read by the test to see the node issue. */
        private volatile int count;

        Node(String owner, GenMethod kind, MachineIdRange range, EmbeddedIdService service) {
            this.owner = owner;
            this.kind = kind;
            this.range = range;
            this.service = service;
            this.machineId = service.machineId();
            this.issuer = new Thread(this::issue, "issuer-" + owner);
        }

        private void issue() {
            try {
                while (!stopping) {
                    for (long id : service.genIds(10)) {
                        if (count == ids.length) {
                            ids = Arrays.copyOf(ids, count * 2);
                        }
                        ids[count] = id;
                        count++;
                    }
                    // A node issuing now and then rather than flat out: a busy 2-core machine runs dozens of these.
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        void stop() {
            stopping = true;
            try {
                issuer.join(TimeUnit.MINUTES.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            assertThat(issuer.isAlive()).as("%s still issuing after two minutes", this).isFalse();
            service.close();
            assertThat(failure.get()).as("what %s's issuer threw", this).isNull();
        }

        /** The IDs it issued; read once {@link #stop()} has joined the issuer. */
        long[] ids() {
            return Arrays.copyOf(ids, count);
        }

        @Override
        public String toString() {
            return owner + " (" + kind + ", machine ID " + machineId + ")";
        }
    }
}
