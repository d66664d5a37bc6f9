package io.vesta.server;

import io.vesta.machine.db.DbMachineIdProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.sql.DataSource;
import java.nio.file.Path;

import static io.vesta.server.LeaseTakeover.awaitTrue;
import static io.vesta.server.LeaseTakeover.get;
import static io.vesta.server.LeaseTakeover.machineOfGenid;
import static io.vesta.server.LeaseTakeover.machinesOfGenids;
import static io.vesta.server.LeaseTakeover.status;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22 item 4 through the whole server on the db strategy: a server whose row was taken over (as after a pause
 * longer than its lease) claims another machine ID by itself and is ready again.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LeaseRegainServerTests {

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        LeaseTakeover.dbStrategy(registry, dir);
    }

    @Autowired
    DataSource dataSource;

    @LocalServerPort
    int port;

    @Test
    void aServerWhoseRowWasTakenOverClaimsAnotherMachineIdAndIsReadyAgain() throws Exception {
        long before = machineOfGenid(port);
        assertThat(status(port, "/actuator/health/readiness")).isEqualTo(200);

        try (DbMachineIdProvider taker = LeaseTakeover.takeOver(dataSource, before)) {
            awaitTrue("the server is ready again under another machine ID", () -> {
                try {
                    return status(port, "/actuator/health/readiness") == 200 && machineOfGenid(port) != before;
                } catch (AssertionError e) {
                    return false;
                }
            });
            long after = machineOfGenid(port);
            assertThat(after).isNotEqualTo(before).isBetween(924L, 1023L);
            assertThat(machinesOfGenids(port, 1_000)).containsOnly(after);
            assertThat(get(port, "/actuator/health").body()).contains("\"machineId\":" + after);
            assertThat(status(port, "/actuator/health/liveness")).isEqualTo(200);
            assertThat(taker.lease().isHeldAt(System.currentTimeMillis() + 3_000)).as("the taker keeps the row").isTrue();
        }
    }
}
