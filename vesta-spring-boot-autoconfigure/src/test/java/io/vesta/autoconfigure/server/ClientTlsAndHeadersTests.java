package io.vesta.autoconfigure.server;

import com.sun.net.httpserver.HttpServer;
import io.vesta.InvalidSettingException;
import io.vesta.client.RemoteIdService;
import io.vesta.client.ServersUnavailableException;
import io.vesta.layout.IdCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The client of a central server over TLS, trusting the server through a Boot SSL bundle
 * ({@code vesta.client.ssl.bundle}), and sending headers of its own ({@code vesta.client.headers.*}). The server is a
 * real Vesta server on HTTPS on a random port, its key and certificate made by the JDK's keytool for this run.
 */
class ClientTlsAndHeadersTests {

    @TempDir
    static Path keys;

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    /** A key pair for 127.0.0.1 in a PKCS12 key store, and its certificate in PEM: what the client trusts. */
    @BeforeAll
    static void keyAndCertificate() throws Exception {
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", "vesta", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keys.resolve("server.p12").toString(), "-storepass", "changeit");
        run(keytool, "-exportcert", "-rfc", "-alias", "vesta", "-keystore", keys.resolve("server.p12").toString(),
                "-storepass", "changeit", "-file", keys.resolve("server.pem").toString());
    }

    private static void run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
            assertThat(process.exitValue()).as(new String(process.getInputStream().readAllBytes())).isZero();
        } finally {
            process.destroyForcibly();
        }
    }

    @AfterEach
    void close() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    private ConfigurableApplicationContext start(SpringApplicationBuilder application) {
        ConfigurableApplicationContext context = application.run();
        contexts.add(context);
        return context;
    }

    private String httpsServer(String... properties) {
        ConfigurableApplicationContext server = start(new SpringApplicationBuilder(App.class).properties(properties).properties(
                "vesta.server.enabled=true", "vesta.machine-id.value=924", "vesta.time-store.enabled=false",
                "server.address=127.0.0.1", "server.port=0", "server.ssl.bundle=server",
                "spring.ssl.bundle.jks.server.keystore.location=file:" + keys.resolve("server.p12"),
                "spring.ssl.bundle.jks.server.keystore.password=changeit",
                "spring.ssl.bundle.jks.server.keystore.type=PKCS12",
                "spring.main.banner-mode=off", "logging.level.root=warn"));
        return "https://127.0.0.1:" + server.getEnvironment().getProperty("local.server.port");
    }

    private SpringApplicationBuilder client(String servers, String... properties) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("vesta.mode=client", "vesta.client.servers=" + servers, "vesta.client.timeout=5s",
                        "spring.main.banner-mode=off", "logging.level.root=warn")
                .properties(properties);
    }

    @Test
    void theClientTrustsAnHttpsServerThroughItsSslBundle() {
        String server = httpsServer();
        RemoteIdService client = start(client(server, "vesta.client.ssl.bundle=servers",
                "spring.ssl.bundle.pem.servers.truststore.certificate=file:" + keys.resolve("server.pem")))
                .getBean(RemoteIdService.class);

        long id = client.genId();

        assertThat(new IdCodec(IdCodec.DEFAULT_EPOCH).expId(id).machine()).isEqualTo(924);
    }

    @Test
    void theClientSendsItsTokenToAnHttpsServerThatRequiresOne() {
        String token = "tls-client-token-5e0b1f2a9c";
        String server = httpsServer("vesta.server.tokens=" + token);
        String[] trust = { "vesta.client.ssl.bundle=servers",
                "spring.ssl.bundle.pem.servers.truststore.certificate=file:" + keys.resolve("server.pem") };

        RemoteIdService withToken = start(client(server, trust).properties("vesta.client.token=" + token))
                .getBean(RemoteIdService.class);
        assertThat(new IdCodec(IdCodec.DEFAULT_EPOCH).expId(withToken.genId()).machine()).isEqualTo(924);

        RemoteIdService without = start(client(server, trust)).getBean(RemoteIdService.class);
        assertThatThrownBy(without::genId).isInstanceOfSatisfying(ServersUnavailableException.class,
                e -> assertThat(e.failures()).singleElement().satisfies(failure -> assertThat(failure.error())
                        .contains("401").doesNotContain(token)));
        assertThat(withToken.toString()).doesNotContain(token);
    }

    @Test
    void aTokenTogetherWithAnAuthorizationHeaderFailsStartUpWithoutShowingEither() {
        assertThatException().isThrownBy(() -> start(client("http://127.0.0.1:1", "vesta.client.token=tok-1234567890",
                "vesta.client.headers[Authorization]=Bearer other-secret")))
                .havingRootCause().isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.setting()).isEqualTo("vesta.client.headers.Authorization");
                    assertThat(e.getMessage()).doesNotContain("tok-1234567890").doesNotContain("other-secret");
                });
    }

    @Test
    void withoutTheBundleTheServersCertificateIsNotTrusted() {
        String server = httpsServer();
        RemoteIdService client = start(client(server)).getBean(RemoteIdService.class);

        assertThatThrownBy(client::genId).isInstanceOfSatisfying(ServersUnavailableException.class,
                e -> assertThat(e.failures()).singleElement().satisfies(failure -> assertThat(failure.error())
                        .containsIgnoringCase("certificat")));
    }

    @Test
    void anUnknownBundleFailsStartUpNamingTheBundlesThereAre() {
        assertThatException().isThrownBy(() -> start(client("https://127.0.0.1:1", "vesta.client.ssl.bundle=servres",
                "spring.ssl.bundle.pem.servers.truststore.certificate=file:" + keys.resolve("server.pem"))))
                .havingRootCause().isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.setting()).isEqualTo("vesta.client.ssl.bundle");
                    assertThat(e.value()).isEqualTo("servres");
                    assertThat(e.allowed()).contains("the application has servers");
                });
    }

    @Test
    void everyRequestCarriesTheConfiguredHeaders() throws IOException, InterruptedException {
        HttpServer recorder = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        List<Map<String, List<String>>> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        recorder.createContext("/", exchange -> {
            received.add(Map.copyOf(exchange.getRequestHeaders()));
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });
        recorder.start();
        try {
            RemoteIdService client = start(client("http://127.0.0.1:" + recorder.getAddress().getPort(),
                    "vesta.client.headers[Authorization]=Bearer vesta-token", "vesta.client.headers.x-tenant=orders"))
                    .getBean(RemoteIdService.class);

            assertThatThrownBy(client::genId).isInstanceOf(ServersUnavailableException.class);

            assertThat(received).isNotEmpty().allSatisfy(headers -> assertThat(headers)
                    .containsEntry("Authorization", List.of("Bearer vesta-token"))
                    .containsEntry("X-tenant", List.of("orders")));
        } finally {
            recorder.stop(0);
        }
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    @ImportAutoConfiguration(SslAutoConfiguration.class)
    static class App {
    }
}
