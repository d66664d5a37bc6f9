package io.vesta.sample.jpa;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample, whose build ran Spring AOT ({@code process-aot}), started with
 * {@code -Dspring.aot.enabled=true}: the context comes from the generated code, not from reflection over the
 * configuration classes. An order placed over HTTP gets a Vesta ID from the Hibernate generator and reads back.
 */
class AotSampleIT {

    @TempDir
    Path dir;

    @Test
    void theSampleRunsFromItsAotGeneratedContextAndIssuesIds() throws Exception {
        Path jar = Path.of("target", "vesta-sample-jpa.jar").toAbsolutePath();
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path log = dir.resolve("sample.log");
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dspring.aot.enabled=true", "-Djava.io.tmpdir=" + dir, "-jar", jar.toString(), "--server.port=" + port,
                "--server.address=127.0.0.1").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI orders = URI.create("http://127.0.0.1:" + port + "/orders");
            HttpResponse<String> placed = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (placed == null) {
                assertThat(process.isAlive()).as("the sample exited:\n%s", Files.exists(log) ? Files.readString(log) : "")
                        .isTrue();
                try {
                    placed = http.send(HttpRequest.newBuilder(orders).header("Content-Type", "application/json")
                            .timeout(Duration.ofSeconds(10))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"item\":\"sencha\",\"quantity\":2}")).build(),
                            HttpResponse.BodyHandlers.ofString());
                } catch (java.io.IOException notYet) {
                    assertThat(System.nanoTime()).as("started within 120 s:\n%s", Files.readString(log)).isLessThan(deadline);
                    Thread.sleep(250);
                }
            }

            assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
            Matcher id = Pattern.compile("\"order\":\\{[^}]*\"id\":\"(\\d+)\"").matcher(placed.body());
            assertThat(id.find()).as(placed.body()).isTrue();
            String found = http.send(HttpRequest.newBuilder(URI.create(orders + "/" + id.group(1))).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(found).contains("\"item\":\"sencha\"").contains("\"machine\":1");
            assertThat(Files.readString(log)).as("started from the AOT-generated context")
                    .contains("Starting AOT-processed JpaSampleApplication");
        } finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
