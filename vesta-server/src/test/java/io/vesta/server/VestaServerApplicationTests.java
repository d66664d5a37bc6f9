package io.vesta.server;

import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.layout.IdCodec;
import io.vesta.protocol.BatchProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The server on its embedded defaults (application.yml), with only its data directory moved into the test's. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class VestaServerApplicationTests {

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        registry.add("vesta.server.data-dir", () -> dir.toString());
    }

    @LocalServerPort
    private int port;

    @Autowired
    private DataSource dataSource;

    private final HttpClient http = HttpClient.newHttpClient();
    private final IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void genidIssuesRestIdsOfMachine924() throws Exception {
        String body = get("/vesta/genid").body();

        Matcher id = Pattern.compile("\\{\"id\":(\\d+),\"idString\":\"(\\d+)\"}").matcher(body);
        assertThat(id.matches()).as(body).isTrue();
        Id fields = codec.expId(Long.parseLong(id.group(1)));
        assertThat(fields.machine()).isEqualTo(924);
        assertThat(fields.genMethod()).isEqualTo(GenMethod.REST.code());
    }

    @Test
    void theRestartMarksAreKeptInTheDataDirectory() throws Exception {
        get("/vesta/genid");

        try (var files = Files.walk(dir)) {
            assertThat(files.map(p -> dir.relativize(p).toString())).as("files under the data directory")
                    .anyMatch(name -> name.startsWith("time/") && name.contains("924"));
        }
    }

    @Test
    void theJavaClientEndpointIssuesCentralServerIds() throws Exception {
        byte[] body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + BatchProtocol.PATH + "?count=3")).build(),
                HttpResponse.BodyHandlers.ofByteArray()).body();

        long[] ids = BatchProtocol.decode(body);
        assertThat(ids).hasSize(3);
        assertThat(codec.expId(ids[0]).genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
        assertThat(codec.expId(ids[0]).machine()).isEqualTo(924);
    }

    @Test
    void segmentsWorkOnTheH2FileDatabaseInTheDataDirectory() throws Exception {
        // The shipped defaults create no tag on a GET: an operator creates it.
        HttpResponse<String> unknown = get("/vesta/segment/orders");
        assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(404);
        assertThat(unknown.body()).contains("Unknown bizTag 'orders'").contains("A GET never creates a tag");
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO vesta_segment (biz_tag, max_id, step, description) VALUES ('orders', 1, 1000, 'test')");
        }

        HttpResponse<String> first = get("/vesta/segment/orders?count=3");
        HttpResponse<String> next = get("/vesta/segment/orders");

        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(first.body()).contains("\"bizTag\":\"orders\"").contains("\"ids\":[1,2,3]");
        assertThat(next.body()).contains("\"id\":4,");
        assertThat(Files.list(dir).map(p -> p.getFileName().toString())).contains("vesta-segments.mv.db");
    }

    @Test
    void actuatorAnswersHealthProbesInfoTheVestaEndpointAndPrometheus() throws Exception {
        get("/vesta/genid");

        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"vesta\":").contains("\"machineId\":924");
        HttpResponse<String> readiness = get("/actuator/health/readiness");
        assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(200);
        assertThat(readiness.body()).contains("\"vesta\":").contains("\"readinessState\":");
        assertThat(get("/actuator/health/liveness").statusCode()).isEqualTo(200);
        assertThat(get("/actuator/info").body()).contains("\"vesta-server\"");
        assertThat(get("/actuator/vesta").body()).contains("\"machineId\":924");
        HttpResponse<String> scrape = get("/actuator/prometheus");
        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.body()).contains("vesta_ids_issued_total{").contains("machine=\"924\"");
    }
}
