package io.vesta.autoconfigure.server;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.protocol.BatchProtocol;
import io.vesta.test.ManualTimeSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server on the {@code db} strategy started again after a crash, under the same owner, while the crashed run's lease
 * still runs: it gets its machine ID back and issues nothing before the high water that run committed. Over real HTTP
 * the 503 says that this is the time reserved before the start, when it ends, and where the mark came from, not that
 * the clock moved backwards.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.server.enabled=true", "vesta.machine-id.strategy=db", "vesta.machine-id.db.owner=" + ServerRestartWithinLeaseTests.OWNER,
        "vesta.machine-id.db.table=" + ServerRestartWithinLeaseTests.TABLE, "spring.datasource.url=" + ServerRestartWithinLeaseTests.URL,
        // A lease that still holds when the test moves the clock past the reservation: the heartbeat runs on real
        // time, and the test's clock jumps.
        "vesta.machine-id.db.lease=90s", "server.address=127.0.0.1", "spring.main.banner-mode=off",
        "vesta.time-store.enabled=false" })
class ServerRestartWithinLeaseTests {

    static final String OWNER = "restarted-server";
    static final String TABLE = "restart_within_lease_test";
    static final String URL = "jdbc:h2:mem:restart-within-lease;DB_CLOSE_DELAY=-1";
    static final Instant CRASH = Instant.parse("2026-06-01T12:00:00.250Z");
    /** The previous run's lease and high water: 60 s after its last heartbeat. */
    static final Instant RESERVED_UNTIL = CRASH.plusSeconds(60);
    static final long LAST_ID_OF_CRASHED_RUN;

    static {
        // The previous run, before this test's server starts: it leases its machine ID, issues, and dies without
        // releasing the row (its heartbeat is far off; it only loses the row to the restart).
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(URL);
        dataSource.setUser("sa");
        ManualTimeSource clock = new ManualTimeSource(CRASH);
        DbMachineIdProvider crashed = DbMachineIdProvider.builder(dataSource).table(TABLE).owner(OWNER).initializeSchema(true)
                .lease(Duration.ofSeconds(60)).heartbeat(Duration.ofSeconds(20)).timeSource(clock).build();
        EmbeddedIdService run = EmbeddedIdService.builder().machineIdProvider(crashed).machineIdRange(MachineIdRange.SERVER)
                .genMethod(GenMethod.REST).timeSource(clock).build();
        LAST_ID_OF_CRASHED_RUN = run.genIds(1000)[999];
    }

    @LocalServerPort
    private int port;

    @Autowired
    private ManualTimeSource clock;

    @Test
    void untilTheCrashedRunsLeaseEndsEveryIdRequestIs503NamingTheReservedTimeThenIdsComeAfterTheCrashedRuns() {
        Http http = new Http(port);
        for (String path : List.of("/vesta/genid", "/vesta/genids?count=3", BatchProtocol.PATH + "?count=3")) {
            HttpResponse<String> response = http.get(path);
            assertThat(response.statusCode()).as(path).isEqualTo(503);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            JsonNode problem = Http.json(response);
            assertThat(problem.get("reason").asString()).as(path).isEqualTo("reserved-time-ahead");
            // Issuing resumes at the first second after the high water (MAX_PEAK): 12:01:01, 55.75 s away.
            assertThat(response.headers().firstValue("Retry-After")).as(path).hasValue("56");
            assertThat(problem.get("title").asString())
                    .isEqualTo("IDs cannot be issued yet: the clock has not reached the time reserved before this start");
            assertThat(problem.get("resumesAt").asString()).isEqualTo("2026-06-01T12:01:01Z");
            assertThat(problem.get("reservedBy").asString()).isEqualTo("the previous holder of machine ID 1023 (this node's"
                    + " previous run, or another node) may have issued IDs: the high-water mark of its lease, read from db"
                    + " (table " + TABLE + ", owner '" + OWNER + "')");
            assertThat(problem.get("detail").asString())
                    .startsWith("Not issuing yet: the clock has not reached the time reserved before this generator started."
                            + " It reads 2026-06-01T12:00:05.250Z, ")
                    .contains("issuing resumes at 2026-06-01T12:01:01Z, in 55750 ms")
                    .contains("the clock has not moved backwards")
                    .doesNotContain("Clock moved backwards");
        }
        JsonNode status = Http.json(http.get("/vesta/status"));
        assertThat(status.get("status").asString()).isEqualTo("DOWN");
        assertThat(status.get("reason").asString()).startsWith("Not issuing yet: the clock has not reached the time reserved");

        clock.set(Instant.parse("2026-06-01T12:01:01Z"));
        HttpResponse<String> issued = http.get("/vesta/genid");
        assertThat(issued.statusCode()).as(issued.body()).isEqualTo(200);
        assertThat(Http.json(issued).get("id").asLong()).isGreaterThan(LAST_ID_OF_CRASHED_RUN);
        assertThat(Http.json(http.get("/vesta/status")).get("status").asString()).isEqualTo("UP");
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    @ImportAutoConfiguration(DataSourceAutoConfiguration.class)
    static class App {

        /** The restart comes 5 s after the crash, well within the crashed run's lease. */
        @Bean
        ManualTimeSource clock() {
            return new ManualTimeSource(CRASH.plusSeconds(5));
        }
    }
}
