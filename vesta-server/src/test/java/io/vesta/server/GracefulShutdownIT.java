package io.vesta.server;

import io.vesta.protocol.BatchProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM while a request is being answered: the request finishes with its whole answer, then the server exits. A
 * min-granularity server issues 1,024 IDs a millisecond, so a batch of 100,000 takes about 100 ms, a window that the
 * test watches through the server's status and stops the server inside.
 */
class GracefulShutdownIT {

    private static final Pattern ISSUED = Pattern.compile("\"centralServerIssued\":(\\d+)");

    @TempDir
    Path dir;

    @Test
    void aRequestInFlightAtSigtermIsAnsweredWhole() throws Exception {
        try (ServerJvm server = ServerJvm.start(dir, List.of("--vesta.type=min-granularity", "--logging.level.root=warn"))) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            URI batch = URI.create("http://127.0.0.1:" + server.port + BatchProtocol.PATH + "?count=100000");
            for (int attempt = 0; attempt < 20; attempt++) {
                long before = issued(server);
                CompletableFuture<HttpResponse<byte[]>> inFlight = http.sendAsync(HttpRequest.newBuilder(batch)
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                long now = before;
                while (now == before && System.nanoTime() < deadline) {
                    now = issued(server);
                }
                if (now > before && now < before + 100_000) {
                    // Issuing has begun and not ended: the request is in flight.
                    server.signal();
                    HttpResponse<byte[]> answer = inFlight.get(30, TimeUnit.SECONDS);
                    assertThat(answer.statusCode()).isEqualTo(200);
                    assertThat(BatchProtocol.decode(answer.body())).hasSize(100_000);
                    assertThat(server.awaitExit()).as("exit code after SIGTERM:\n%s", server.tail()).isIn(0, 143);
                    return;
                }
                inFlight.get(30, TimeUnit.SECONDS); // finished before the status showed it: try again
            }
            throw new AssertionError("no batch was caught in flight in 20 attempts");
        }
    }

    private static long issued(ServerJvm server) throws Exception {
        Matcher matcher = ISSUED.matcher(server.get("/vesta/status").body());
        assertThat(matcher.find()).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
