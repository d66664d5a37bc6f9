package io.vesta.autoconfigure.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

import javax.sql.DataSource;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GET and DELETE /vesta/admin/leases over real HTTP, on a server whose machine ID is a lease in a real (H2) table, with
 * rows of other owners written beside its own; and GET /vesta/status.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.server.enabled=true", "vesta.machine-id.strategy=db", "vesta.machine-id.db.owner=this-server",
        "vesta.machine-id.db.table=lease_admin_test", "vesta.server.lease-admin-enabled=true",
        "vesta.server.tokens=" + ServerLeaseAdminTests.CLIENT, "vesta.server.admin-tokens=" + ServerLeaseAdminTests.ADMIN,
        "spring.datasource.url=jdbc:h2:mem:lease-admin;DB_CLOSE_DELAY=-1", "server.address=127.0.0.1",
        "spring.main.banner-mode=off", "vesta.time-store.enabled=false" })
class ServerLeaseAdminTests {

    static final String CLIENT = "lease-client-token-0123456789";
    static final String ADMIN = "lease-admin-token-9876543210";

    @LocalServerPort
    private int port;

    @Autowired
    private DataSource dataSource;

    private JdbcTemplate jdbc;
    private long now;

    @BeforeEach
    void otherOwners() {
        jdbc = new JdbcTemplate(dataSource);
        now = System.currentTimeMillis();
        jdbc.update("DELETE FROM lease_admin_test WHERE owner <> 'this-server'");
        long live = now + Duration.ofSeconds(60).toMillis();
        jdbc.update("INSERT INTO lease_admin_test VALUES (925, 'crashed-node', ?, ?, 3)", live, live);
        jdbc.update("INSERT INTO lease_admin_test VALUES (926, 'stopped-node', ?, ?, 5)", now - 1000, now - 1000);
    }

    @Test
    void theListShowsEveryMachineIdOfTheServerRange() {
        HttpResponse<String> response = new Http(port, ADMIN).get("/vesta/admin/leases");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode table = Http.json(response);
        assertThat(table.get("store").asString()).isEqualTo("table lease_admin_test");
        assertThat(table.get("range").asString()).isEqualTo("924-1023");
        // A server leases from the top of the server range down.
        assertThat(table.get("node").get("first").asLong()).isEqualTo(1023);
        assertThat(table.get("releaseEnabled").asBoolean()).isTrue();
        JsonNode leases = table.get("leases");
        assertThat(leases.size()).isEqualTo(100);
        assertThat(leases.get(0).get("machineId").asLong()).isEqualTo(924);
        assertThat(leases.get(0).get("state").asString()).isEqualTo("free");
        assertThat(leases.get(99).get("machineId").asLong()).isEqualTo(1023);
        assertThat(leases.get(99).get("self").asBoolean()).isTrue();
        assertThat(leases.get(99).get("state").asString()).isEqualTo("live");
        assertThat(leases.get(99).get("owner").asString()).isEqualTo("this-server");
        assertThat(leases.get(1).get("owner").asString()).isEqualTo("crashed-node");
        assertThat(leases.get(1).get("live").asBoolean()).isTrue();
        assertThat(leases.get(1).get("generation").asLong()).isEqualTo(3);
        assertThat(leases.get(2).get("state").asString()).isEqualTo("expired");
        assertThat(leases.get(3).get("state").asString()).isEqualTo("free");
        assertThat(leases.get(3).get("owner").isNull()).isTrue();

        assertThat(Http.json(new Http(port, ADMIN).get("/vesta/admin/leases?range=embedded")).get("leases").size()).isEqualTo(924);
        assertThat(new Http(port, ADMIN).get("/vesta/admin/leases?range=all").statusCode()).isEqualTo(400);
        assertThat(new Http(port).get("/vesta/admin/leases").statusCode()).isEqualTo(401);
        assertThat(new Http(port, CLIENT).get("/vesta/admin/leases").statusCode()).as("operator information").isEqualTo(403);
    }

    @Test
    void aLiveLeaseIsEndedOnlyByForceAndOnlyWithAnAdminToken() {
        Http admin = new Http(port, ADMIN);

        assertThat(new Http(port, CLIENT).delete("/vesta/admin/leases/925?force=true").statusCode()).isEqualTo(403);
        HttpResponse<String> refused = admin.delete("/vesta/admin/leases/925");
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(Http.json(refused).get("reason").asString()).isEqualTo("live");
        assertThat(Http.json(refused).get("detail").asString()).contains("owner 'crashed-node'").contains("force");

        HttpResponse<String> forced = admin.delete("/vesta/admin/leases/925?force=true");

        assertThat(forced.statusCode()).as(forced.body()).isEqualTo(200);
        JsonNode outcome = Http.json(forced);
        assertThat(outcome.get("ended").asBoolean()).isTrue();
        assertThat(outcome.get("before").get("generation").asLong()).isEqualTo(3);
        assertThat(outcome.get("after").get("generation").asLong()).isEqualTo(4);
        assertThat(outcome.get("after").get("state").asString()).isEqualTo("expired");
        assertThat(jdbc.queryForObject("SELECT lease_expiry FROM lease_admin_test WHERE machine_id = 925", Long.class))
                .isBetween(now, System.currentTimeMillis());
        assertThat(jdbc.queryForObject("SELECT high_water FROM lease_admin_test WHERE machine_id = 925", Long.class))
                .as("kept: the next holder starts after it").isEqualTo(now + 60_000);
    }

    @Test
    void anEndedLeaseItsOwnLeaseAndUnknownIdsAreAnsweredAsTheyAre() {
        Http admin = new Http(port, ADMIN);

        HttpResponse<String> ended = admin.delete("/vesta/admin/leases/926");
        assertThat(ended.statusCode()).isEqualTo(200);
        assertThat(Http.json(ended).get("ended").asBoolean()).isFalse();
        HttpResponse<String> own = admin.delete("/vesta/admin/leases/1023?force=true");
        assertThat(own.statusCode()).isEqualTo(409);
        assertThat(Http.json(own).get("reason").asString()).isEqualTo("own");
        assertThat(admin.delete("/vesta/admin/leases/1000").statusCode()).isEqualTo(404);
        HttpResponse<String> bad = admin.delete("/vesta/admin/leases/soon");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(Http.json(bad).get("parameter").asString()).isEqualTo("machineId");
        assertThat(admin.delete("/vesta/admin/leases/925?force=maybe").statusCode()).isEqualTo(400);
    }

    @Test
    void theStatusShowsTheNodeAndTheIdsItIssuedPerSecond() throws Exception {
        Http http = new Http(port, CLIENT);
        http.get("/vesta/genids?count=100");
        // The samples are taken once a second: wait for one taken after the request (other tests of this server may
        // have left samples already, so their count says nothing).
        JsonNode status = Http.json(http.get("/vesta/status"));
        for (int i = 0; i < 100 && restInSamples(status) < 100; i++) {
            Thread.sleep(100);
            status = Http.json(http.get("/vesta/status"));
        }

        assertThat(status.get("status").asString()).isEqualTo("UP");
        assertThat(status.get("reason").isNull()).isTrue();
        assertThat(status.get("machineIdFirst").asLong()).isEqualTo(1023);
        assertThat(status.get("machineIdSource").asString()).contains("table lease_admin_test");
        assertThat(status.get("leaseHeldUntil").isNull()).isFalse();
        assertThat(status.get("restIssued").asLong()).isGreaterThanOrEqualTo(100);
        assertThat(restInSamples(status)).as("the 100 IDs appear in the samples").isGreaterThanOrEqualTo(100);
    }

    @Test
    void publicIdsAreNotFoundWhenTheyAreOff() {
        HttpResponse<String> response = new Http(port, ADMIN).get("/vesta/admin/public-ids?id=1");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(404);
        assertThat(Http.json(response).get("detail").asString()).isEqualTo("Public IDs are off: set"
                + " vesta.public-id.enabled=true with vesta.public-id.keys to convert them at /vesta/admin/public-ids");
        assertThat(new Http(port, ADMIN).get("/vesta/admin/public-ids/1ABCDEFGHJKMNPQRS").statusCode()).isEqualTo(404);
        assertThat(new Http(port, CLIENT).get("/vesta/admin/public-ids?id=1").statusCode()).isEqualTo(403);
    }

    private static long restInSamples(JsonNode status) {
        long perSecond = 0;
        for (JsonNode sample : status.get("perSecond")) {
            perSecond += sample.get("rest").asLong();
        }
        return perSecond;
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    @ImportAutoConfiguration(DataSourceAutoConfiguration.class)
    static class App {
    }
}
