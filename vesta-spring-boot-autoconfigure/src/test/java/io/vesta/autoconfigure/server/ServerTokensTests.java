package io.vesta.autoconfigure.server;

import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.protocol.BatchProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** vesta.server.tokens and vesta.server.admin-tokens over real HTTP, and the settings they make safe. */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.server.enabled=true", "vesta.machine-id.value=1001", "vesta.server.make-id-enabled=true",
        "server.address=127.0.0.1", "spring.main.banner-mode=off", "vesta.time-store.enabled=false",
        "vesta.server.tokens=" + ServerTokensTests.CLIENT + "," + ServerTokensTests.OTHER_CLIENT,
        "vesta.server.admin-tokens=" + ServerTokensTests.ADMIN,
        "logging.level.org.springframework.web=debug", "logging.level.io.vesta=debug" })
class ServerTokensTests {

    static final String CLIENT = "client-token-4f1c9a0e7b2d";
    static final String OTHER_CLIENT = "client-token-second-9d8e7f";
    static final String ADMIN = "admin-token-77a3c1d0e5f9";

    @LocalServerPort
    private int port;

    @Autowired
    private VestaServerProperties properties;

    @Test
    void anIdEndpointWithoutATokenIs401WithAChallengeAndAProblem() {
        HttpResponse<String> response = new Http(port).get("/vesta/genid");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"vesta\"");
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        JsonNode problem = Http.json(response);
        assertThat(problem.get("status").asInt()).isEqualTo(401);
        assertThat(problem.get("reason").asString()).isEqualTo("token-required");
        assertThat(problem.get("instance").asString()).isEqualTo("/vesta/genid");
        assertThat(problem.get("detail").asString()).contains("Authorization: Bearer <token>");
    }

    @Test
    void anUnknownTokenIs401AndNeitherTheAnswerNorTheLogShowsIt(CapturedOutput output) {
        HttpResponse<String> response = new Http(port, "client-token-4f1c9a0e7b2X").get("/vesta/genids?count=2");

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(response.body()).contains("not one of this server's tokens").doesNotContain("client-token");
        new Http(port, CLIENT).get("/vesta/genid");
        new Http(port, ADMIN).postForm("/vesta/makeid", "time=1&seq=1");
        assertThat(output.getAll()).doesNotContain("client-token").doesNotContain("admin-token").doesNotContain("4f1c9a0e7b2");
        assertThat(properties.toString()).doesNotContain(CLIENT).contains("tokens=2");
    }

    @Test
    void eitherClientTokenOrAnAdminTokenCallsTheIdEndpoints() {
        for (String token : new String[] { CLIENT, OTHER_CLIENT, ADMIN }) {
            Http http = new Http(port, token);
            assertThat(http.get("/vesta/genid").statusCode()).isEqualTo(200);
            assertThat(http.get("/vesta/genids?count=3").statusCode()).isEqualTo(200);
            HttpResponse<byte[]> batch = http.getBytes(BatchProtocol.PATH + "?count=4");
            assertThat(batch.statusCode()).isEqualTo(200);
            assertThat(BatchProtocol.decode(batch.body())).hasSize(4);
        }
    }

    @Test
    void theSchemeIsCaseInsensitiveAsRfc6750Says() throws Exception {
        var client = java.net.http.HttpClient.newHttpClient();
        HttpResponse<String> response = client.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + port + "/vesta/genid")).header("Authorization", "bearer " + CLIENT).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        HttpResponse<String> basic = client.send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + port + "/vesta/genid")).header("Authorization", "Basic " + CLIENT).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(basic.statusCode()).isEqualTo(401);
    }

    @Test
    void makeidTakesOnlyAnAdminToken() {
        HttpResponse<String> client = new Http(port, CLIENT).postForm("/vesta/makeid", "time=1&seq=1");
        assertThat(client.statusCode()).isEqualTo(403);
        JsonNode problem = Http.json(client);
        assertThat(problem.get("reason").asString()).isEqualTo("admin-token-required");
        assertThat(problem.get("detail").asString()).contains("POST /vesta/makeid is an operator's endpoint");

        assertThat(new Http(port).postForm("/vesta/makeid", "time=1&seq=1").statusCode()).isEqualTo(401);
        HttpResponse<String> admin = new Http(port, ADMIN).postForm("/vesta/makeid", "time=1&seq=1");
        assertThat(admin.statusCode()).isEqualTo(200);
        assertThat(Http.json(admin).get("machine").asLong()).isEqualTo(1001);
    }

    @Test
    void pathsOutsideVestaAreNotTheFiltersConcern() {
        // No handler there: Spring's own 404, not a 401.
        assertThat(new Http(port).get("/elsewhere").statusCode()).isEqualTo(404);
    }

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaServerAutoConfiguration.class))
            .withPropertyValues("vesta.server.enabled=true", "vesta.machine-id.value=924", "vesta.time-store.enabled=false");

    @Test
    void makeidEnabledWithoutAdminTokensFailsStartUpInsteadOfOpeningIt() {
        runner.withPropertyValues("vesta.server.make-id-enabled=true", "vesta.server.tokens=" + CLIENT).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                assertThat(e.setting()).isEqualTo("vesta.server.make-id-enabled");
                assertThat(e.allowed()).isEqualTo("false, or true together with vesta.server.admin-tokens");
                assertThat(e.getMessage()).contains("POST /vesta/makeid").contains("open to anyone");
            });
        });
    }

    @Test
    void leaseAdminEnabledWithoutAdminTokensFailsStartUp() {
        runner.withPropertyValues("vesta.server.lease-admin-enabled=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class,
                    e -> assertThat(e.setting()).isEqualTo("vesta.server.lease-admin-enabled"));
        });
    }

    @Test
    void aShortTokenIsRefusedNamingItsPlaceButNotItsValue() {
        runner.withPropertyValues("vesta.server.tokens=" + CLIENT + ",short-secret").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                assertThat(e.setting()).isEqualTo("vesta.server.tokens[1]");
                assertThat(e.getMessage()).doesNotContain("short-secret").contains("(not shown)").contains("it has 12 characters")
                        .contains("16 to 1024 visible ASCII characters");
            });
        });
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    static class App {
    }
}
