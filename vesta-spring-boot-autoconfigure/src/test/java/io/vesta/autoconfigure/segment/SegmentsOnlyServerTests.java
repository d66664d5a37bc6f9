package io.vesta.autoconfigure.segment;

import io.vesta.IdService;
import io.vesta.machine.MachineIdProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A central server of segments only ({@code vesta.server.ids-enabled=false}) over real HTTP: it starts with no
 * {@code vesta.machine-id.*} at all, serves {@code /vesta/segment/**} and issues no Vesta IDs.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.server.enabled=true", "vesta.server.ids-enabled=false", "server.address=127.0.0.1",
        "vesta.segment.enabled=true", "vesta.segment.initialize-schema=always", "vesta.segment.auto-create=true",
        "spring.main.banner-mode=off" })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SegmentsOnlyServerTests {

    private static final String TABLE = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @LocalServerPort
    private int port;

    @Autowired
    private ApplicationContext context;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> "jdbc:h2:mem:" + TABLE + ";DB_CLOSE_DELAY=-1");
        registry.add("vesta.segment.table", () -> TABLE);
    }

    @AfterAll
    void dropTable() {
        new JdbcTemplate(context.getBean(DataSource.class)).execute("DROP TABLE IF EXISTS " + TABLE);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesSegmentsWithoutAMachineId() throws Exception {
        // auto-create=true: a POST creates the tag (a GET never does).
        assertThat(get("/vesta/segment/orders").statusCode()).isEqualTo(404);
        HttpResponse<String> first = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/vesta/segment/orders")).timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(JsonMapper.builder().build().readTree(first.body()).get("id").asLong()).isEqualTo(1);
        assertThat(context.getBeanNamesForType(MachineIdProvider.class)).isEmpty();
        assertThat(context.getBeanNamesForType(IdService.class)).isEmpty();
    }

    @Test
    void issuesNoVestaIds() throws Exception {
        assertThat(get("/vesta/genid").statusCode()).isEqualTo(404);
        assertThat(get("/vesta/v1/ids?count=10").statusCode()).isEqualTo(404);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
