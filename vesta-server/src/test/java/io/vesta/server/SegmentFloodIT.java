package io.vesta.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 30,000 made-up segment tags at a {@code vesta-server} with a small heap, as anyone who can reach the port (or a page
 * on another origin, through {@code <img src>}) could send them: a GET creates nothing and is refused cheaply; 30,000
 * tags a configured pattern lets a POST create cost a bounded amount (buffers, meters, health); so do 2,000 tags an
 * admin creates. After both floods the server is UP, issues IDs and numbers, keeps its Prometheus and health answers
 * within a bound, and stops on SIGTERM. Four keep-alive connections on 127.0.0.1; about a minute on two busy cores.
 */
class SegmentFloodIT {

    private static final String TOKEN = "flood-client-token-0123456789";
    private static final String ADMIN_TOKEN = "flood-admin-token-0123456789";
    private static final int FLOOD = 30_000;
    private static final int ADMIN_CREATED = 2_000;
    private static final int MAX_BUFFERED_TAGS = 300;
    private static final int CONNECTIONS = 4;

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void thirtyThousandTagsLeaveTheServerHealthyBoundedAndStoppable() throws Exception {
        try (ServerJvm server = ServerJvm.start(dir, List.of("-Xmx64m"), List.of("--logging.level.root=warn",
                "--vesta.server.tokens=" + TOKEN, "--vesta.server.admin-tokens=" + ADMIN_TOKEN,
                "--vesta.segment.admin-enabled=true", "--vesta.segment.auto-create-tags=flood-[0-9]+",
                "--vesta.segment.max-buffered-tags=" + MAX_BUFFERED_TAGS), Map.of())) {
            String base = "http://127.0.0.1:" + server.port;
            int healthBefore = server.getBytes("/actuator/health").body().length;
            int prometheusBefore = server.getBytes("/actuator/prometheus").body().length;

            // The forbidden path: a GET of a tag nobody created, even one the pattern would let a POST create.
            long started = System.nanoTime();
            flood(FLOOD, i -> get(base + "/vesta/segment/" + (i % 2 == 0 ? "probe-" : "flood-") + i, TOKEN), 404);
            long refusedIn = elapsedMillis(started);
            assertThat(server.get("/actuator/health").body().length()).as("health after refused GETs")
                    .isLessThan(healthBefore + 1024);
            assertThat(get(base + "/vesta/segments", TOKEN).body()).isEqualTo("[]");
            // flood-1 was asked for by a GET above: had that created it, it would have used number 1.
            assertThat(send(post(base + "/vesta/segment/flood-1", TOKEN)).body()).contains("\"id\":1,");

            // The allowed paths: a POST of a tag the pattern matches, and an admin's explicit creation.
            started = System.nanoTime();
            flood(FLOOD, i -> send(post(base + "/vesta/segment/flood-" + (i + 1), TOKEN)), 200);
            long createdIn = elapsedMillis(started);
            flood(ADMIN_CREATED, i -> send(post(base + "/vesta/admin/segments/admin-" + i + "?step=10", ADMIN_TOKEN)), 201);
            flood(ADMIN_CREATED, i -> get(base + "/vesta/segment/admin-" + i, TOKEN), 200);
            assertThat(send(post(base + "/vesta/admin/segments/admin-1", TOKEN)).statusCode()).as("a client token").isEqualTo(403);

            HttpResponse<String> health = server.get("/actuator/health");
            int prometheus = server.getBytes("/actuator/prometheus").body().length;
            System.out.printf("[SegmentFloodIT] %d GETs refused in %d ms, %d tags created and used in %d ms; health %d -> %d"
                    + " bytes, prometheus %d -> %d bytes%n", FLOOD, refusedIn, FLOOD, createdIn, healthBefore,
                    health.body().length(), prometheusBefore, prometheus);
            assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
            assertThat(health.body()).contains("\"status\":\"UP\"");
            assertThat(health.body().length()).as("health size").isLessThan(healthBefore + 4096);
            // Four per-tag meters for at most MAX_BUFFERED_TAGS tags, each sample line well under 200 bytes.
            assertThat(prometheus).as("prometheus size").isLessThan(prometheusBefore + MAX_BUFFERED_TAGS * 4 * 200);
            assertThat(get(base + "/vesta/genid", TOKEN).statusCode()).isEqualTo(200);
            // A tag whose buffer was dropped carries on after the numbers it skipped.
            assertThat(send(post(base + "/vesta/segment/flood-1", TOKEN)).body()).doesNotContain("\"id\":1,").contains("\"id\":");

            long stopping = System.nanoTime();
            assertThat(server.stop()).as("exit code after SIGTERM:\n%s", server.tail()).isIn(0, 143);
            long stoppedIn = elapsedMillis(stopping);
            System.out.printf("[SegmentFloodIT] exited %d ms after SIGTERM%n", stoppedIn);
            assertThat(stoppedIn).as("ms from SIGTERM to exit").isLessThan(30_000);
        }
    }

    /** {@code count} requests over {@link #CONNECTIONS} connections; each must answer {@code status}. */
    private void flood(int count, IntFunction<HttpResponse<String>> request, int status) throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int worker = 0; worker < CONNECTIONS; worker++) {
                int first = worker;
                done.add(workers.submit(() -> {
                    for (int i = first; i < count; i += CONNECTIONS) {
                        HttpResponse<String> response = request.apply(i);
                        assertThat(response.statusCode()).as("request %d: %s", i, response.body()).isEqualTo(status);
                    }
                    return null;
                }));
            }
            for (Future<?> worker : done) {
                worker.get(5, TimeUnit.MINUTES);
            }
        } finally {
            workers.shutdownNow();
        }
    }

    private HttpResponse<String> get(String uri, String token) {
        return send(HttpRequest.newBuilder(URI.create(uri)).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30)).GET().build());
    }

    private static HttpRequest post(String uri, String token) {
        return HttpRequest.newBuilder(URI.create(uri)).header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(request.method() + " " + request.uri() + " failed", e);
        }
    }

    private static long elapsedMillis(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }
}
