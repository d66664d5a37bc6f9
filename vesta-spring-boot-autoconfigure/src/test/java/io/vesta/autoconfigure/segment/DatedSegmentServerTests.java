package io.vesta.autoconfigure.segment;

import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code /vesta/segment/{bizTag}} of dated tags over real HTTP, on a server with client tokens and a clock moved by
 * hand: a POST creates the period's row and answers dated numbers, a GET answers them once the row exists and creates
 * nothing, and the path written differently, a wrong token or none create nothing either.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.machine-id.value=932", "vesta.server.enabled=true", "vesta.time-store.enabled=false",
        "vesta.segment.enabled=true", "vesta.segment.initialize-schema=always", "vesta.segment.default-step=5",
        "vesta.segment.dated-tags.orders.zone=Asia/Tokyo", "vesta.segment.dated-tags.orders.width=6",
        "vesta.segment.dated-tags.orders.start=1",
        "vesta.segment.dated-tags.tickets.period=month", "vesta.segment.dated-tags.tickets.width=1",
        "vesta.segment.dated-tags.tickets.start=8",
        "vesta.server.tokens=" + DatedSegmentServerTests.CLIENT, "server.address=127.0.0.1" })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatedSegmentServerTests {

    static final String CLIENT = "dated-client-token-0123456789";
    private static final String TABLE = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    /** 23:59:59.999 on 4 December 2026 in Tokyo. */
    private static final Instant BEFORE_MIDNIGHT = Instant.parse("2026-12-04T14:59:59.999Z");
    private static final ManualTimeSource CLOCK = new ManualTimeSource(BEFORE_MIDNIGHT);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final JsonMapper json = JsonMapper.builder().build();

    @LocalServerPort
    private int port;

    @Autowired
    private DataSource dataSource;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> "jdbc:h2:mem:" + TABLE + ";DB_CLOSE_DELAY=-1");
        registry.add("vesta.segment.table", () -> TABLE);
    }

    @BeforeEach
    void emptyTable() {
        new JdbcTemplate(dataSource).update("DELETE FROM " + TABLE);
    }

    @AfterAll
    void dropTable() {
        new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + TABLE);
    }

    @Test
    void aPostCreatesThePeriodsRowAndAnswersDatedNumbersAndAGetFollowsOnceItExists() throws Exception {
        CLOCK.set(Instant.parse("2027-03-10T14:59:59.999Z"));
        HttpResponse<String> before = send("GET", "/vesta/segment/orders", CLIENT);
        assertThat(before.statusCode()).as(before.body()).isEqualTo(404);
        assertThat(json.readTree(before.body()).get("detail").asString()).contains("orders:20270310");
        assertThat(rows()).isEmpty();

        HttpResponse<String> created = send("POST", "/vesta/segment/orders", CLIENT);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        JsonNode body = json.readTree(created.body());
        assertThat(body.get("bizTag").asString()).isEqualTo("orders");
        assertThat(body.get("id").asLong()).isEqualTo(20270310_000001L);
        assertThat(body.get("idString").asString()).isEqualTo("20270310000001");
        JsonNode batch = json.readTree(send("GET", "/vesta/segment/orders?count=3", CLIENT).body());
        assertThat(batch.get("idStrings").toString()).isEqualTo(
                "[\"20270310000002\",\"20270310000003\",\"20270310000004\"]");

        CLOCK.advance(Duration.ofMillis(1));
        // Midnight in Tokyo: the new day has no row yet, so a GET is a 404 and a POST starts the day.
        assertThat(send("GET", "/vesta/segment/orders", CLIENT).statusCode()).isEqualTo(404);
        assertThat(json.readTree(send("POST", "/vesta/segment/orders?count=2", CLIENT).body()).get("ids").toString())
                .isEqualTo("[20270311000001,20270311000002]");
        assertThat(json.readTree(send("GET", "/vesta/segment/orders", CLIENT).body()).get("id").asLong())
                .isEqualTo(20270311_000003L);
        assertThat(rows()).containsExactly("orders:20270310", "orders:20270311");

        // The server holds buffers for the current day only.
        JsonNode views = json.readTree(send("GET", "/vesta/segments", CLIENT).body());
        assertThat(views.findValuesAsString("bizTag")).containsExactly("orders:20270311");
    }

    @Test
    void aCounterPastItsWidthIsA503NamingTheTagPeriodAndWidth() throws Exception {
        CLOCK.set(Instant.parse("2027-05-20T00:00:00Z"));
        assertThat(json.readTree(send("POST", "/vesta/segment/tickets", CLIENT).body()).get("id").asLong())
                .isEqualTo(202705_8L);
        assertThat(json.readTree(send("POST", "/vesta/segment/tickets", CLIENT).body()).get("id").asLong())
                .isEqualTo(202705_9L);
        HttpResponse<String> overflow = send("POST", "/vesta/segment/tickets", CLIENT);
        assertThat(overflow.statusCode()).as(overflow.body()).isEqualTo(503);
        assertThat(overflow.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = json.readTree(overflow.body());
        assertThat(problem.get("reason").asString()).isEqualTo("dated-counter-exhausted");
        assertThat(problem.get("bizTag").asString()).isEqualTo("tickets");
        assertThat(problem.get("period").asString()).isEqualTo("202705");
        assertThat(problem.get("width").asInt()).isEqualTo(1);
        assertThat(problem.get("detail").asString()).contains("reached 10");
    }

    @Test
    void aWrongTokenNoTokenOrThePathWrittenDifferentlyCreateNothing() throws Exception {
        CLOCK.set(Instant.parse("2027-06-01T03:00:00Z"));
        for (String path : List.of("/vesta/segment/orders", "/vesta/segment/orders;x", "/vesta/segment/%6Frders",
                "/vesta/segment/./orders", "/vesta/segment/x/../orders", "/vesta//segment/orders",
                "/vesta/%73egment/orders")) {
            for (String token : new String[] { null, "not-a-token-of-this-server-0123" }) {
                HttpResponse<String> response = send("POST", path, token);
                assertThat(response.statusCode()).as("POST %s with %s: %s", path, token, response.body()).isIn(400, 401, 403);
            }
            if (!path.equals("/vesta/segment/orders")) {
                HttpResponse<String> response = send("POST", path, CLIENT);
                assertThat(response.statusCode()).as("POST %s: %s", path, response.body()).isIn(400, 404);
            }
            for (String token : new String[] { null, "not-a-token-of-this-server-0123", CLIENT }) {
                assertThat(send("GET", path, token).statusCode()).as("GET %s with %s", path, token).isIn(400, 401, 403, 404);
            }
        }
        // Nor does a period's row asked for by its own name.
        HttpResponse<String> row = send("POST", "/vesta/segment/orders:20270601", CLIENT);
        assertThat(row.statusCode()).as(row.body()).isEqualTo(400);
        assertThat(json.readTree(row.body()).get("detail").asString()).contains("dated tag 'orders'");
        assertThat(rows()).isEmpty();
    }

    private List<String> rows() {
        return new JdbcTemplate(dataSource).queryForList("SELECT biz_tag FROM " + TABLE + " ORDER BY biz_tag", String.class);
    }

    private HttpResponse<String> send(String method, String path, String token) throws Exception {
        return SegmentAdminServerTests.send(http, port, method, path, token);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        TimeSource clock() {
            return CLOCK;
        }
    }
}
