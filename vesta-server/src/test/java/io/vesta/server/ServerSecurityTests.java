package io.vesta.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server as shipped (application.yml) with tokens set: what stays open to a caller without a token (health
 * status and probes, the dashboard's page) shows nothing more, the dashboard's page comes with a strict policy, and
 * Tomcat's own answers to broken requests are problem details too.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.server.tokens=" + ServerSecurityTests.CLIENT, "vesta.server.admin-tokens=" + ServerSecurityTests.ADMIN })
class ServerSecurityTests {

    static final String CLIENT = "security-client-token-0123456789";
    static final String ADMIN = "security-admin-token-9876543210";

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        registry.add("vesta.server.data-dir", () -> dir.toString());
    }

    @LocalServerPort
    private int port;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthShowsItsDetailsOnlyToACallerWithAToken() throws Exception {
        for (String path : new String[] { "/actuator/health", "/actuator/health/readiness", "/actuator/health/liveness" }) {
            for (String token : new String[] { null, "security-unknown-token-000000" }) {
                HttpResponse<String> health = get(path, token);
                assertThat(health.statusCode()).as(path).isEqualTo(200);
                assertThat(health.body()).as(path + " without a valid token").contains("\"status\":\"UP\"")
                        .doesNotContain("\"components\"").doesNotContain("\"details\"").doesNotContain("\"path\"")
                        .doesNotContain("machineId");
            }
        }

        for (String token : new String[] { CLIENT, ADMIN }) {
            String details = get("/actuator/health", token).body();
            assertThat(details).contains("\"diskSpace\":").contains("\"path\":").contains("\"vesta\":")
                    .contains("\"machineId\":924");
            assertThat(get("/actuator/health/readiness", token).body()).contains("\"vesta\":").contains("\"readinessState\":");
        }
    }

    @Test
    void theDashboardsPageForbidsEverythingItDoesNotUse() throws Exception {
        for (String path : new String[] { "/", "/index.html" }) {
            HttpResponse<String> page = get(path, null);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
            assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue("default-src 'none'; script-src 'self';"
                    + " style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self';"
                    + " frame-ancestors 'none'");
            assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
            assertThat(page.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
            assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            // What the policy would block: an inline script, an inline style, a handler attribute.
            assertThat(page.body()).contains("<script src=\"vesta-dashboard.js\"></script>")
                    .doesNotContainPattern("<script>|<script [^>]*>[^<]").doesNotContain("<style").doesNotContain("style=")
                    .doesNotContainPattern(" on[a-z]+=");
        }
        for (String path : new String[] { "/vesta-dashboard.js", "/vesta-dashboard.css", "/actuator/health" }) {
            assertThat(get(path, null).headers().firstValue("X-Content-Type-Options")).as(path).hasValue("nosniff");
        }
    }

    @Test
    void tomcatsOwnAnswersToBrokenRequestsAreProblems() throws Exception {
        for (String line : new String[] { "GET /vesta/gen<id> HTTP/1.1", "GET /vesta/genid%zz HTTP/1.1",
                "GET /vesta%2fgenid HTTP/1.1", "GET /vesta\\genid HTTP/1.1", "GET /index.html\u0001 HTTP/1.1" }) {
            String answer = raw(line + "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            assertThat(answer).as(line).startsWith("HTTP/1.1 400 ").containsIgnoringCase("Content-Type: application/problem+json")
                    .containsIgnoringCase("X-Content-Type-Options: nosniff").contains("\"status\":400")
                    .doesNotContain("<html");
        }
    }

    private String raw(String request) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
