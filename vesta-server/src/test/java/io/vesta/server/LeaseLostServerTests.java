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
import static io.vesta.server.LeaseTakeover.status;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22 item 4 where no machine ID is left to claim: the server whose row was taken over keeps trying, not ready,
 * and its liveness goes DOWN after vesta.machine-id.liveness-timeout so that the platform restarts it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LeaseLostServerTests {

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        LeaseTakeover.dbStrategy(registry, dir);
        registry.add("vesta.machine-id.server-range.min", () -> "1023");
        registry.add("vesta.machine-id.server-range.max", () -> "1023");
        registry.add("vesta.machine-id.liveness-timeout", () -> "1s");
    }

    @Autowired
    DataSource dataSource;

    @LocalServerPort
    int port;

    @Test
    void aServerThatCannotClaimAnotherMachineIdGoesDownOnLivenessSoThePlatformRestartsIt() throws Exception {
        long before = machineOfGenid(port);
        assertThat(status(port, "/actuator/health/liveness")).isEqualTo(200);

        try (DbMachineIdProvider taker = LeaseTakeover.takeOver(dataSource, before)) {
            awaitTrue("liveness DOWN", () -> status(port, "/actuator/health/liveness") == 503);
            assertThat(status(port, "/actuator/health/readiness")).isEqualTo(503);
            assertThat(get(port, "/actuator/health/liveness").body()).contains("\"vestaLiveness\":")
                    .contains("vesta.machine-id.liveness-timeout");
            assertThat(status(port, "/vesta/genid")).isEqualTo(503);
        }
    }
}
