package io.vesta.autoconfigure.server;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a central server answers besides IDs, over real HTTP written byte for byte ({@link RawHttp}): HEAD issues
 * nothing, numbers are ASCII digits, every error is problem+json with the security headers, and a forced lease release
 * is logged with who asked.
 */
@ExtendWith(OutputCaptureExtension.class)
@EveryEndpointServer
class ServerAnswersTests {

    static final String CLIENT = EveryEndpointServer.CLIENT;
    static final String ADMIN = EveryEndpointServer.ADMIN;
    static final String TAG = EveryEndpointServer.TAG;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    private int port;

    @Autowired
    private DataSource dataSource;

    @Autowired
    private ServerIdServices services;

    private JdbcTemplate jdbc;
    private RawHttp http;

    @BeforeEach
    void rows() {
        http = new RawHttp(port);
        jdbc = EveryEndpointServer.Rows.reset(dataSource);
    }

    private long issued() {
        return services.rest().idsIssued() + services.centralServer().idsIssued();
    }

    private long segmentNumber() {
        RawHttp.Response next = http.send("GET", "/vesta/segment/" + TAG, CLIENT);
        assertThat(next.status()).as(next.toString()).isEqualTo(200);
        return JSON.readTree(next.body()).get("id").asLong();
    }

    @Test
    void headAnswersTheHeadersOfAGetAndIssuesNothing() {
        long before = issued();
        long number = segmentNumber();

        for (String target : List.of("/vesta/genid", "/vesta/genids?count=100000", "/vesta/v1/ids?count=100000",
                "/vesta/segment/" + TAG, "/vesta/segment/" + TAG + "?count=100000")) {
            RawHttp.Response head = http.send("HEAD", target, CLIENT);
            assertThat(head.status()).as(target + ": " + head).isEqualTo(200);
            assertThat(head.header("Content-Type")).as(target).startsWith(target.startsWith("/vesta/v1/")
                    ? "application/octet-stream" : "application/json");
            assertThat(head.body()).as(target).isEmpty();
        }
        assertThat(http.send("HEAD", "/vesta/genids?count=100000", null).status()).as("the token comes first").isEqualTo(401);

        assertThat(issued()).as("IDs issued by the HEADs").isEqualTo(before);
        assertThat(segmentNumber()).as("the segment's next number after the HEADs").isEqualTo(number + 1);
        http.send("GET", "/vesta/genid", CLIENT);
        assertThat(issued()).as("a GET of /vesta/genid issues one").isEqualTo(before + 1);
    }

    /** The lease rows as a read must leave them; this server's own heartbeat moves its row's expiry and high water. */
    private static final String LEASES_BUT_OWN_HEARTBEAT = "SELECT machine_id, owner, generation, CASE WHEN owner = '"
            + EveryEndpointServer.OWNER + "' THEN 0 ELSE lease_expiry END AS lease_expiry, CASE WHEN owner = '"
            + EveryEndpointServer.OWNER + "' THEN 0 ELSE"
            + " high_water END AS high_water FROM every_endpoint_lease ORDER BY machine_id";

    @Test
    void theReadingEndpointsChangeNothing() {
        long before = issued();
        List<Map<String, Object>> leases = jdbc.queryForList(LEASES_BUT_OWN_HEARTBEAT);
        List<Map<String, Object>> segments = jdbc.queryForList("SELECT * FROM every_endpoint_segment ORDER BY biz_tag");

        for (String target : List.of("/vesta/status", "/vesta/expid/2709972879205731228", "/vesta/transtime/1",
                "/vesta/segments", "/vesta/admin/leases", "/vesta/admin/leases?range=embedded")) {
            for (String method : List.of("GET", "HEAD")) {
                assertThat(http.send(method, target, ADMIN).status()).as(method + " " + target).isEqualTo(200);
            }
        }

        assertThat(issued()).isEqualTo(before);
        assertThat(jdbc.queryForList(LEASES_BUT_OWN_HEARTBEAT)).isEqualTo(leases);
        assertThat(jdbc.queryForList("SELECT * FROM every_endpoint_segment ORDER BY biz_tag")).isEqualTo(segments);
    }

    @Test
    void numbersAreAsciiDigitsOnly() {
        assertBadParameter(http.send("GET", "/vesta/genids?count=%EF%BC%95", CLIENT), "count", "５", "[1, 100000]");
        assertBadParameter(http.send("GET", "/vesta/genids?count=%2B5", CLIENT), "count", "+5", "[1, 100000]");
        assertBadParameter(http.send("GET", "/vesta/v1/ids?count=%D9%A5", CLIENT), "count", "٥", "[1, 100000]");
        assertBadParameter(http.send("GET", "/vesta/expid/%EF%BC%91%EF%BC%92", CLIENT), "id", "１２", "64-bit integer");
        assertBadParameter(http.send("GET", "/vesta/transtime/%EF%BC%91", CLIENT), "time", "１", "[0, ");
        assertBadParameter(http.send("POST", "/vesta/makeid?time=%EF%BC%91&seq=1", ADMIN), "time", "１", "integer");
        assertBadParameter(http.send("DELETE", "/vesta/admin/leases/%EF%BC%99%EF%BC%92%EF%BC%95", ADMIN), "machineId",
                "９２５", "integer");
        RawHttp.Response segment = http.send("GET", "/vesta/segment/" + TAG + "?count=%EF%BC%95", CLIENT);
        assertThat(segment.status()).as(segment.toString()).isEqualTo(400);
        assertThat(JSON.readTree(segment.body()).get("parameter").asString()).isEqualTo("count");
        assertThat(JSON.readTree(segment.body()).get("value").asString()).isEqualTo("５");

        assertThat(http.send("GET", "/vesta/genids?count=5", CLIENT).status()).isEqualTo(200);
        assertThat(http.send("GET", "/vesta/expid/12", CLIENT).status()).isEqualTo(200);
    }

    private static void assertBadParameter(RawHttp.Response response, String parameter, String value, String range) {
        assertThat(response.status()).as(response.toString()).isEqualTo(400);
        assertThat(response.header("Content-Type")).startsWith("application/problem+json");
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.get("parameter").asString()).isEqualTo(parameter);
        assertThat(problem.get("value").asString()).isEqualTo(value);
        assertThat(problem.get("detail").asString()).contains(parameter).contains("'" + value + "'").contains(range);
    }

    @Test
    void everyErrorIsAProblemWithNosniff() {
        assertProblem(http.send("GET", "/nothing-here", null), 404, "No endpoint GET /nothing-here");
        assertProblem(http.send("GET", "/vesta/nothing-here", CLIENT), 404, "No endpoint GET /vesta/nothing-here");
        assertProblem(http.send("GET", "/error", null), 404, "No endpoint GET /error");
        RawHttp.Response put = http.send("PUT", "/vesta/genids?count=1", CLIENT);
        assertProblem(put, 405, "Method 'PUT' is not supported.");
        assertThat(put.header("Allow")).contains("GET");
        assertProblem(http.send("POST", "/vesta/genid", CLIENT), 405, null);
        assertProblem(http.send("GET", "/vesta/genids?count=1", CLIENT, null, Map.of("Accept", "text/html")), 406, null);
        assertProblem(http.send("GET", "/vesta/status", CLIENT, null, Map.of("Accept", "image/png")), 406, null);
        // Tomcat's own: an invalid escape, an encoded '/', characters a request line may not hold.
        assertProblem(http.send("GET", "/vesta/genid%zz", CLIENT), 400, null);
        assertProblem(http.send("GET", "/vesta%2fgenid", CLIENT), 400, null);
        assertProblem(http.sendBytes("GET /vesta/gen<id> HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1)), 400, null);
        assertProblem(http.sendBytes("GET /vesta/genid\u0001 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1)), 400, null);
        assertProblem(http.sendBytes("GET /vesta/genid HTTP/1.1\r\nHost: x\r\nBad Header\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1)), 400, null);
    }

    private static void assertProblem(RawHttp.Response response, int status, String detail) {
        assertThat(response.status()).as(response.toString()).isEqualTo(status);
        assertThat(response.header("Content-Type")).as(response.toString()).startsWith("application/problem+json");
        assertThat(response.header("X-Content-Type-Options")).as(response.toString()).isEqualTo("nosniff");
        JsonNode problem = JSON.readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("title").asString()).isNotBlank();
        assertThat(problem.get("detail").asString()).isNotBlank();
        if (detail != null) {
            assertThat(problem.get("detail").asString()).isEqualTo(detail);
        }
    }

    @Test
    void answersUnderVestaAreNeverCachedFramedOrSniffed() {
        for (String token : new String[] { null, CLIENT }) {
            RawHttp.Response response = http.send("GET", "/vesta/genid", token);
            assertThat(response.header("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(response.header("Cache-Control")).isEqualTo("no-store");
            assertThat(response.header("Content-Security-Policy")).isEqualTo("default-src 'none'; frame-ancestors 'none'");
            assertThat(response.header("X-Frame-Options")).isEqualTo("DENY");
            assertThat(response.header("Referrer-Policy")).isEqualTo("no-referrer");
        }
        assertThat(http.send("GET", "/nothing-here", null).header("X-Content-Type-Options")).isEqualTo("nosniff");
    }

    @Test
    void aForcedReleaseLogsTheFingerprintOfTheTokenAndTheAddressThatAskedNeverTheToken(CapturedOutput output)
            throws Exception {
        String fingerprint = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(ADMIN.getBytes(StandardCharsets.UTF_8)), 0, 4);

        RawHttp.Response released = http.send("DELETE", "/vesta/admin/leases/925?force=true", ADMIN);

        assertThat(released.status()).as(released.toString()).isEqualTo(200);
        assertThat(output.getAll()).contains("Forced release of the lease on machine ID 925 asked by admin token "
                + fingerprint + " from 127.0.0.1").doesNotContain(ADMIN).doesNotContain(CLIENT);
    }
}
