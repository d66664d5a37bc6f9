package io.vesta.autoconfigure.segment;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /vesta/segment/{bizTag}} over real HTTP in a Boot application with a servlet container, an H2
 * DataSource from {@code spring.datasource.*} and {@code vesta.server.enabled=true}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.machine-id.value=930", "vesta.server.enabled=true",
        "vesta.segment.enabled=true", "vesta.segment.initialize-schema=always", "vesta.segment.auto-create-tags=auto-.*",
        "management.endpoints.web.exposure.include=vesta" })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SegmentServerTests {

    private static final String TABLE = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

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

    @AfterAll
    void dropTable() throws SQLException {
        execute("DROP TABLE IF EXISTS " + TABLE);
    }

    @Test
    void nextNumberComesAsNumberAndString() throws Exception {
        String tag = tag(100);
        HttpResponse<String> first = get("/vesta/segment/" + tag);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        JsonNode body = json.readTree(first.body());
        assertThat(body.get("bizTag").asString()).isEqualTo(tag);
        assertThat(body.get("id").isIntegralNumber()).isTrue();
        assertThat(body.get("id").asLong()).isEqualTo(1);
        assertThat(body.get("idString").asString()).isEqualTo("1");

        assertThat(json.readTree(get("/vesta/segment/" + tag).body()).get("id").asLong()).isEqualTo(2);
    }

    @Test
    void countGivesThatManyIncreasingNumbers() throws Exception {
        String tag = tag(10);
        HttpResponse<String> response = get("/vesta/segment/" + tag + "?count=25");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = json.readTree(response.body());
        assertThat(body.get("count").asInt()).isEqualTo(25);
        List<Long> ids = new ArrayList<>();
        body.get("ids").forEach(id -> ids.add(id.asLong()));
        List<String> strings = new ArrayList<>();
        body.get("idStrings").forEach(id -> strings.add(id.asString()));
        // Three segments of step 10 or more: dense within each, increasing throughout.
        assertThat(ids).hasSize(25).isSorted().doesNotHaveDuplicates().startsWith(1L, 2L, 3L);
        assertThat(strings).isEqualTo(ids.stream().map(String::valueOf).toList());
        assertThat(json.readTree(get("/vesta/segment/" + tag + "?count=100000").body()).get("ids").size()).isEqualTo(100_000);
    }

    @Test
    void badCountIsA400ProblemNamingTheParameter() throws Exception {
        String tag = tag(100);
        for (String count : List.of("0", "100001", "-5", "many", "", "2147483648")) {
            HttpResponse<String> response = get("/vesta/segment/" + tag + "?count=" + URLEncoder.encode(count, StandardCharsets.UTF_8));
            assertThat(response.statusCode()).as("count=%s", count).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            JsonNode problem = json.readTree(response.body());
            assertThat(problem.get("status").asInt()).isEqualTo(400);
            assertThat(problem.get("parameter").asString()).isEqualTo("count");
            assertThat(problem.get("value").asString()).isEqualTo(count);
            assertThat(problem.get("detail").asString()).startsWith("count must be").contains("[1, 100000]");
            assertThat(problem.get("instance").asString()).isEqualTo("/vesta/segment/" + tag);
        }
        // Nothing was drawn by the refused requests.
        assertThat(json.readTree(get("/vesta/segment/" + tag).body()).get("id").asLong()).isEqualTo(1);
    }

    @Test
    void unknownTagIsA404Problem() throws Exception {
        HttpResponse<String> response = get("/vesta/segment/no-such-tag");
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = json.readTree(response.body());
        assertThat(problem.get("title").asString()).isEqualTo("Unknown bizTag");
        assertThat(problem.get("bizTag").asString()).isEqualTo("no-such-tag");
        assertThat(problem.get("detail").asString()).contains("Unknown bizTag 'no-such-tag'").contains(TABLE);
    }

    @Test
    void tooLongTagIsA400ProblemNamingTheParameter() throws Exception {
        HttpResponse<String> response = get("/vesta/segment/" + "t".repeat(129));
        assertThat(response.statusCode()).isEqualTo(400);
        JsonNode problem = json.readTree(response.body());
        assertThat(problem.get("parameter").asString()).isEqualTo("bizTag");
        assertThat(problem.get("detail").asString()).contains("bizTag must be 1 to 128 characters matching");
        assertThat(problem.get("pattern").asString()).isEqualTo("[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}");
    }

    @Test
    void aGetNeverCreatesATagEvenOneThePatternMatchesAndAPostDoes() throws Exception {
        String tag = "auto-" + UUID.randomUUID().toString().substring(0, 8);
        for (String query : List.of("", "?count=5")) {
            HttpResponse<String> refused = get("/vesta/segment/" + tag + query);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(404);
            assertThat(json.readTree(refused.body()).get("detail").asString()).contains("A GET never creates a tag");
        }
        assertThat(count(tag)).isZero();
        assertThat(get("/vesta/segments").body()).doesNotContain(tag);

        HttpResponse<String> created = post("/vesta/segment/" + tag + "?count=2");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        assertThat(json.readTree(created.body()).get("idStrings").toString()).isEqualTo("[\"1\",\"2\"]");
        assertThat(count(tag)).isEqualTo(1);
        // Once it exists, a GET issues its numbers, a POST too.
        assertThat(json.readTree(get("/vesta/segment/" + tag).body()).get("id").asLong()).isEqualTo(3);
        assertThat(json.readTree(post("/vesta/segment/" + tag).body()).get("id").asLong()).isEqualTo(4);

        // A POST of a tag outside the pattern creates nothing either.
        HttpResponse<String> outside = post("/vesta/segment/manual-" + tag);
        assertThat(outside.statusCode()).isEqualTo(404);
        assertThat(count("manual-" + tag)).isZero();
    }

    @Test
    void aSemicolonNeverCutsTheTagAndEncodedOrInvisibleCharactersAreRefused() throws Exception {
        String tag = tag(100);
        for (String sent : List.of(tag + ";x", tag + ";", tag + ";jsessionid=1", tag + "%3Bx", tag + "%20", "%E2%80%8B" + tag,
                tag + "%09", "%2E" + tag, "%EF%BD%8F" + tag.substring(1))) {
            for (boolean viaPost : new boolean[] { false, true }) {
                HttpResponse<String> response = viaPost ? post("/vesta/segment/" + sent) : get("/vesta/segment/" + sent);
                assertThat(response.statusCode()).as("%s %s: %s", viaPost ? "POST" : "GET", sent, response.body()).isEqualTo(400);
                assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                JsonNode problem = json.readTree(response.body());
                if (sent.contains(";") || sent.startsWith("%2E")) {
                    // A path parameter or an encoded '.' never reaches the handler: the path is not in normal form.
                    assertThat(problem.get("reason").asString()).isEqualTo("path-not-normalised");
                    continue;
                }
                assertThat(problem.get("parameter").asString()).isEqualTo("bizTag");
                assertThat(problem.get("pattern").asString()).isEqualTo("[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}");
                assertThat(problem.get("detail").asString()).startsWith("bizTag must be 1 to 128 characters matching");
            }
        }
        assertThat(json.readTree(get("/vesta/segment/" + tag + "%3Bx").body()).get("value").asString()).isEqualTo(tag + ";x");
        assertThat(json.readTree(get("/vesta/segment/%E2%80%8B" + tag).body()).get("detail").asString())
                .contains("was \"\\u200b" + tag + "\"");
        // Nothing was drawn by the refused requests: the tag itself still starts at 1.
        assertThat(json.readTree(get("/vesta/segment/" + tag).body()).get("id").asLong()).isEqualTo(1);
    }

    @Test
    void tableUnreachableIsA503ProblemWithTheReasonAndServiceResumesAfterwards() throws Exception {
        String tag = tag(100);
        execute("ALTER TABLE " + TABLE + " RENAME TO " + TABLE + "_away");
        try {
            HttpResponse<String> response = get("/vesta/segment/" + tag);
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            JsonNode problem = json.readTree(response.body());
            assertThat(problem.get("bizTag").asString()).isEqualTo(tag);
            assertThat(problem.get("reason").asString()).isEqualTo("segment-unavailable");
            assertThat(problem.get("detail").asString()).contains("No number for bizTag '" + tag + "'")
                    .contains("could not be loaded from table " + TABLE).containsIgnoringCase("not found");
        } finally {
            execute("ALTER TABLE " + TABLE + "_away RENAME TO " + TABLE);
        }
        assertThat(json.readTree(get("/vesta/segment/" + tag).body()).get("id").asLong()).isEqualTo(1);
    }

    @Test
    void actuatorEndpointListsTheSegmentsOfEachTag() throws Exception {
        String tag = tag(50);
        get("/vesta/segment/" + tag + "?count=3");
        HttpResponse<String> response = get("/actuator/vesta");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode segments = json.readTree(response.body()).get("segments");
        assertThat(segments.get("table").asString()).isEqualTo(TABLE);
        JsonNode view = null;
        for (JsonNode candidate : segments.get("tags")) {
            if (candidate.get("bizTag").asString().equals(tag)) {
                view = candidate;
            }
        }
        assertThat(view).as("the tag %s in %s", tag, segments).isNotNull();
        assertThat(view.get("segmentStart").asLong()).isEqualTo(1);
        assertThat(view.get("segmentEnd").asLong()).isEqualTo(51);
        assertThat(view.get("position").asLong()).isEqualTo(4);
        assertThat(view.get("tableStep").asInt()).isEqualTo(50);
        assertThat(view.get("loads").asLong()).isPositive();
    }

    /** A new tag, a row of its own with the given step. */
    private String tag(int step) throws SQLException {
        String tag = "tag-" + UUID.randomUUID().toString().substring(0, 8);
        execute("INSERT INTO " + TABLE + " (biz_tag, max_id, step, description) VALUES ('" + tag + "', 1, " + step + ", 'test')");
        return tag;
    }

    private void execute(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private long count(String tag) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             java.sql.ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + TABLE + " WHERE biz_tag = '" + tag + "'")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private HttpResponse<String> post(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody()).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
