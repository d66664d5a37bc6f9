package io.vesta.server;

import io.vesta.GenMethod;
import io.vesta.layout.IdCodec;
import io.vesta.protocol.BatchProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built jar as it is deployed: three vesta-server JVMs sharing one PostgreSQL database for their machine-ID
 * leases and their segments. They take distinct machine IDs, a restart under the same owner gets its ID back, no ID
 * is issued twice across them, a SIGTERM releases the lease, and two servers on one segment table hand out 20,000
 * numbers of a tag with none twice. Runs in {@code verify}, after {@code package} made the jar.
 */
class ServerClusterIT {

    private static final Pattern IDS = Pattern.compile("\"ids\":\\[([0-9,]*)]");

    @TempDir
    Path dir;

    private final List<ServerJvm> servers = new ArrayList<>();
    private String url;
    private String leaseTable;
    private String segmentTable;

    @AfterEach
    void stopAll() throws Exception {
        servers.forEach(ServerJvm::close);
        if (url != null) {
            TestEnvironment.drop(url, leaseTable, segmentTable);
        }
    }

    /**
     * Node 1 is configured by an application.yml in its working directory, node 2 by arguments, node 3 by environment
     * variables: the three ways an operator configures a Boot application.
     */
    private ServerJvm start(int node) throws Exception {
        Path home = dir.resolve("node-" + node);
        java.nio.file.Files.createDirectories(home);
        String owner = "cluster-node-" + node;
        ServerJvm server = switch (node) {
            case 1 -> {
                java.nio.file.Files.writeString(home.resolve("application.yml"), String.join("\n",
                        "spring.datasource.url: \"" + url + "\"",
                        "vesta:",
                        "  machine-id:",
                        "    strategy: db",
                        "    db: { table: " + leaseTable + ", initialize-schema: always, owner: " + owner + " }",
                        "  segment.table: " + segmentTable,
                        "logging.level.root: warn", ""));
                yield ServerJvm.start(home, List.of());
            }
            case 2 -> ServerJvm.start(home, List.of("--spring.datasource.url=" + url, "--vesta.machine-id.strategy=db",
                    "--vesta.machine-id.db.table=" + leaseTable, "--vesta.machine-id.db.initialize-schema=always",
                    "--vesta.machine-id.db.owner=" + owner, "--vesta.segment.table=" + segmentTable,
                    "--logging.level.root=warn"));
            default -> ServerJvm.start(home, List.of(), Map.of("SPRING_DATASOURCE_URL", url,
                    "VESTA_MACHINE_ID_STRATEGY", "db", "VESTA_MACHINE_ID_DB_TABLE", leaseTable,
                    "VESTA_MACHINE_ID_DB_INITIALIZESCHEMA", "always", "VESTA_MACHINE_ID_DB_OWNER", owner,
                    "VESTA_SEGMENT_TABLE", segmentTable, "LOGGING_LEVEL_ROOT", "warn"));
        };
        servers.add(server);
        return server;
    }

    @Test
    void threeServersOnOnePostgresTableIssueDisjointIdsAndARestartGetsItsIdBack() throws Exception {
        url = TestEnvironment.postgres();
        leaseTable = TestEnvironment.table("vesta_machine_it");
        segmentTable = TestEnvironment.table("vesta_segment_it");
        IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);
        // The first creates the tables; the other two start together.
        List<ServerJvm> nodes = new ArrayList<>(List.of(start(1)));
        ExecutorService starter = Executors.newFixedThreadPool(2);
        try {
            List<Callable<ServerJvm>> starts = List.of(() -> start(2), () -> start(3));
            for (Future<ServerJvm> started : starter.invokeAll(starts)) {
                nodes.add(started.get());
            }
        } finally {
            starter.shutdownNow();
        }

        Set<Long> seen = new HashSet<>();
        Map<Integer, Long> machineOf = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            long[] ids = takeIds(nodes.get(i), seen);
            long machine = codec.expId(ids[0]).machine();
            machineOf.put(i, machine);
            assertThat(Arrays.stream(ids).map(id -> codec.expId(id).machine()).distinct().toArray()).containsExactly(machine);
        }
        assertThat(new HashSet<>(machineOf.values())).as("three machine IDs").hasSize(3)
                .allSatisfy(machine -> assertThat(machine).isBetween(924L, 1023L));
        assertThat(owners()).as("each configured its own way").containsExactlyInAnyOrder("cluster-node-1",
                "cluster-node-2", "cluster-node-3");

        // SIGTERM: graceful shutdown releases the lease (its row's lease ends at once).
        ServerJvm second = nodes.get(1);
        assertThat(second.stop()).as("exit code after SIGTERM:\n%s", second.tail()).isIn(0, 143);
        assertThat(leaseExpiry(machineOf.get(1))).isLessThanOrEqualTo(System.currentTimeMillis());

        ServerJvm restarted = start(2);
        long[] after = takeIds(restarted, seen);
        assertThat(codec.expId(after[0]).machine()).as("the same owner gets its machine ID back").isEqualTo(machineOf.get(1));
        for (int i : new int[] { 0, 2 }) {
            takeIds(nodes.get(i), seen);
        }
        assertThat(seen).as("no ID twice across the three servers and the restart").hasSize(6 * 2 * 10_000);

        // Two servers on one segment table: 20,000 numbers of a tag, none twice.
        TestEnvironment.insertSegmentTag(url, segmentTable, "it-orders");
        Set<Long> numbers = new HashSet<>();
        List<ServerJvm> two = List.of(nodes.get(0), restarted);
        for (int round = 0; round < 20; round++) {
            for (ServerJvm server : two) {
                HttpResponse<String> response = server.get("/vesta/segment/it-orders?count=500");
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                for (long number : ids(response.body())) {
                    assertThat(numbers.add(number)).as("segment number %d issued twice", number).isTrue();
                }
            }
        }
        assertThat(numbers).hasSize(20_000);
    }

    /** 10,000 REST IDs and 10,000 batch IDs of one server, each new to {@code seen}. */
    private static long[] takeIds(ServerJvm server, Set<Long> seen) throws Exception {
        HttpResponse<String> rest = server.get("/vesta/genids?count=10000");
        assertThat(rest.statusCode()).as(rest.body()).isEqualTo(200);
        long[] restIds = ids(rest.body());
        HttpResponse<byte[]> batch = server.getBytes(BatchProtocol.PATH + "?count=10000");
        assertThat(batch.statusCode()).isEqualTo(200);
        long[] batchIds = BatchProtocol.decode(batch.body());
        IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);
        assertThat(codec.expId(restIds[0]).genMethod()).isEqualTo(GenMethod.REST.code());
        assertThat(codec.expId(batchIds[0]).genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
        for (long[] ids : new long[][] { restIds, batchIds }) {
            assertThat(ids).hasSize(10_000);
            for (long id : ids) {
                assertThat(seen.add(id)).as("ID %d issued twice", id).isTrue();
            }
        }
        return restIds;
    }

    private static long[] ids(String body) {
        Matcher matcher = IDS.matcher(body);
        assertThat(matcher.find()).as(body).isTrue();
        return Arrays.stream(matcher.group(1).split(",")).mapToLong(Long::parseLong).toArray();
    }

    private List<String> owners() throws Exception {
        List<String> owners = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(url);
                ResultSet rs = connection.createStatement().executeQuery("SELECT owner FROM " + leaseTable)) {
            while (rs.next()) {
                owners.add(rs.getString(1));
            }
        }
        return owners;
    }

    private long leaseExpiry(long machineId) throws Exception {
        try (Connection connection = DriverManager.getConnection(url);
                PreparedStatement select = connection.prepareStatement("SELECT lease_expiry FROM " + leaseTable
                        + " WHERE machine_id = ?")) {
            select.setLong(1, machineId);
            try (ResultSet rs = select.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getLong(1);
            }
        }
    }
}
