package io.vesta.autoconfigure.segment;

import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.server.VestaServerAutoConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST /vesta/admin/segments/{bizTag}} over real HTTP on a server with client and admin tokens: the explicit,
 * authorized way to create a tag. Only an admin token creates; a client token, no token, a wrong token and the path
 * written differently create nothing.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.machine-id.value=931", "vesta.server.enabled=true", "vesta.time-store.enabled=false",
        "vesta.segment.enabled=true", "vesta.segment.initialize-schema=always", "vesta.segment.admin-enabled=true",
        "vesta.segment.default-step=40", "vesta.server.tokens=" + SegmentAdminServerTests.CLIENT,
        "vesta.server.admin-tokens=" + SegmentAdminServerTests.ADMIN, "server.address=127.0.0.1" })
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SegmentAdminServerTests {

    static final String CLIENT = "segment-client-token-0123456789";
    static final String ADMIN = "segment-admin-token-9876543210";
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
    void dropTable() {
        new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + TABLE);
    }

    @Test
    void anAdminCreatesATagOnceWithItsStepAndStartAndRepeatingTheCallChangesNothing() throws Exception {
        String tag = tag();
        HttpResponse<String> created = send("POST", "/vesta/admin/segments/" + tag + "?step=25&start=500", ADMIN);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(created.headers().firstValue("Location")).hasValue("/vesta/segment/" + tag);
        JsonNode body = json.readTree(created.body());
        assertThat(body.get("bizTag").asString()).isEqualTo(tag);
        assertThat(body.get("created").asBoolean()).isTrue();
        assertThat(body.get("maxId").asLong()).isEqualTo(500);
        assertThat(body.get("step").asInt()).isEqualTo(25);

        HttpResponse<String> first = send("GET", "/vesta/segment/" + tag, CLIENT);
        assertThat(json.readTree(first.body()).get("id").asLong()).isEqualTo(500);

        HttpResponse<String> again = send("POST", "/vesta/admin/segments/" + tag + "?step=7&start=1", ADMIN);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(json.readTree(again.body()).get("created").asBoolean()).isFalse();
        assertThat(json.readTree(again.body()).get("step").asInt()).isEqualTo(25);
        assertThat(rows(tag)).isEqualTo(1);

        String plain = tag();
        HttpResponse<String> defaults = send("POST", "/vesta/admin/segments/" + plain, ADMIN);
        assertThat(defaults.statusCode()).isEqualTo(201);
        assertThat(json.readTree(defaults.body()).get("step").asInt()).isEqualTo(40);
        assertThat(json.readTree(defaults.body()).get("maxId").asLong()).isEqualTo(1);
    }

    @Test
    void withoutAnAdminTokenNothingIsCreatedWhateverThePathLooksLike() throws Exception {
        String tag = tag();
        for (String path : List.of("/vesta/admin/segments/" + tag, "/vesta/admin/segments/" + tag + ";x",
                "/vesta/admin/segments/%" + Integer.toHexString(tag.charAt(0)) + tag.substring(1),
                "/vesta/admin/segments/./" + tag, "/vesta/admin/segments/x/../" + tag, "/vesta/admin/%73egments/" + tag)) {
            for (String token : new String[] { null, CLIENT, "not-a-token-of-this-server-0123" }) {
                HttpResponse<String> response = send("POST", path, token);
                assertThat(response.statusCode()).as("POST %s with %s: %s", path, token, response.body())
                        .isIn(400, 401, 403, 404);
            }
        }
        assertThat(rows(tag)).isZero();
        // Not a GET either, with any token.
        assertThat(send("GET", "/vesta/admin/segments/" + tag, ADMIN).statusCode()).isEqualTo(405);
        assertThat(rows(tag)).isZero();
    }

    @Test
    void badArgumentsAre400ProblemsNamingTheParameterAndCreateNothing() throws Exception {
        String tag = tag();
        for (String[] bad : new String[][] { { "step", "0" }, { "step", "1000000001" }, { "step", "ten" },
                { "step", "\uFF15" }, { "start", "0" }, { "start", "-1" }, { "start", "4611686018427387904" } }) {
            HttpResponse<String> response = send("POST", "/vesta/admin/segments/" + tag + "?" + bad[0] + "="
                    + java.net.URLEncoder.encode(bad[1], java.nio.charset.StandardCharsets.UTF_8), ADMIN);
            assertThat(response.statusCode()).as("%s=%s: %s", bad[0], bad[1], response.body()).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            JsonNode problem = json.readTree(response.body());
            assertThat(problem.get("parameter").asString()).isEqualTo(bad[0]);
            assertThat(problem.get("value").asString()).isEqualTo(bad[1]);
            assertThat(problem.get("detail").asString()).startsWith(bad[0] + " must be");
        }
        for (String badTag : List.of(tag + ";x", tag + "%20", "%E2%80%8B" + tag, ".x" + tag)) {
            HttpResponse<String> response = send("POST", "/vesta/admin/segments/" + badTag, ADMIN);
            assertThat(response.statusCode()).as("%s: %s", badTag, response.body()).isEqualTo(400);
            if (badTag.contains(";")) {
                // A path parameter never reaches the handler: the path is not in normal form.
                assertThat(json.readTree(response.body()).get("reason").asString()).isEqualTo("path-not-normalised");
                continue;
            }
            assertThat(json.readTree(response.body()).get("parameter").asString()).isEqualTo("bizTag");
            assertThat(json.readTree(response.body()).get("pattern").asString()).isEqualTo("[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}");
        }
        assertThat(new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE biz_tag LIKE ?",
                Long.class, "%" + tag + "%")).isZero();
    }

    @Test
    void adminEnabledWithoutAdminTokensFailsStartUpInsteadOfOpeningIt() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                        VestaServerAutoConfiguration.class, VestaSegmentAutoConfiguration.class,
                        VestaSegmentServerAutoConfiguration.class))
                .withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924", "vesta.time-store.enabled=false",
                        "vesta.segment.enabled=true", "vesta.segment.admin-enabled=true", "vesta.server.tokens=" + CLIENT,
                        "spring.datasource.url=jdbc:h2:mem:admin-no-tokens;DB_CLOSE_DELAY=-1")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                            e -> {
                                assertThat(e.setting()).isEqualTo("vesta.segment.admin-enabled");
                                assertThat(e.allowed()).isEqualTo("false, or true together with vesta.server.admin-tokens");
                                assertThat(e.getMessage()).contains("POST /vesta/admin/segments/{bizTag}").contains("open to anyone");
                            });
                });
    }

    private String tag() {
        return "adm-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private long rows(String tag) {
        return new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE biz_tag = ?", Long.class, tag);
    }

    private HttpResponse<String> send(String method, String path, String token) throws Exception {
        return send(http, port, method, path, token);
    }

    /** A request with no body to the server on {@code port}, with {@code token} as a bearer token unless null. */
    static HttpResponse<String> send(HttpClient http, int port, String method, String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
