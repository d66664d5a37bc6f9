package io.vesta.client;

import io.vesta.protocol.BatchProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HttpTransportTests {

    private final FakeServer server;
    /** Generous: a first request on a busy machine can take a while. */
    private final HttpTransport transport = new HttpTransport(null, Duration.ofSeconds(2));

    HttpTransportTests() throws IOException {
        server = new FakeServer(930);
    }

    @AfterEach
    void close() {
        transport.close();
        server.close();
        Thread.interrupted();
    }

    private URI batch(int count) {
        return new IdServer(server.uri(), 1, 1).batchUri(count);
    }

    @Test
    void aBatchArrivesWithItsEpochOnEitherKindOfThread() throws Exception {
        for (boolean interruptible : new boolean[] { true, false }) {
            HttpResponse<byte[]> response = transport.get(batch(10), interruptible);

            assertThat(BatchProtocol.decode(response.body())).hasSize(10);
            assertThat(response.headers().firstValue(BatchProtocol.EPOCH_HEADER)).contains(server.epochHeader);
        }
    }

    @Test
    void extraHeadersGoWithEveryRequestBesideTheProtocolsAccept() throws Exception {
        try (HttpTransport withHeaders = new HttpTransport(null, null, null,
                Map.of("Authorization", "Bearer vesta-token", "X-Tenant", "orders"), Duration.ofSeconds(2))) {
            withHeaders.get(batch(10), false);

            assertThat(server.lastHeaders).containsEntry("Authorization", List.of("Bearer vesta-token"))
                    .containsEntry("X-tenant", List.of("orders"))
                    .containsEntry("Accept", List.of(BatchProtocol.MEDIA_TYPE + ", application/problem+json"));
        }
    }

    @Test
    void anAnswerOtherThan200FailsWithTheProblemsDetail() {
        server.behaviour = FakeServer.Behaviour.FAIL;

        assertThatThrownBy(() -> transport.get(batch(10), false)).isExactlyInstanceOf(IOException.class)
                .hasMessage("HTTP 503: Clock moved backwards: \"test\"");
    }

    @Test
    void aBodyThatStallsIsCutOffAtTheTimeoutAndTheInterruptDoesNotLeak() throws Exception {
        server.behaviour = FakeServer.Behaviour.STALL_BODY;
        try (HttpTransport impatient = new HttpTransport(null, Duration.ofMillis(300))) {
            for (boolean interruptible : new boolean[] { true, false }) {
                long started = System.nanoTime();

                assertThatThrownBy(() -> impatient.get(batch(100), interruptible)).isInstanceOf(HttpTimeoutException.class)
                        .hasMessage("timed out after 300 ms");

                assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(250), Duration.ofSeconds(2));
                assertThat(Thread.currentThread().isInterrupted()).isFalse();
            }
        }
        server.behaviour = FakeServer.Behaviour.SERVE;
        assertThat(BatchProtocol.decode(transport.get(batch(10), true).body())).hasSize(10);
    }

    @Test
    void aClosedTransportStartsNoInterruptibleExchange() {
        transport.close();

        assertThatThrownBy(() -> transport.get(batch(10), true)).isInstanceOf(InterruptedException.class);
        assertThat(server.requests).hasValue(0);
    }

    @Test
    void theUsersHttpClientCarriesTheExchanges() throws Exception {
        AtomicInteger tasks = new AtomicInteger();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (HttpTransport own = new HttpTransport(HttpClient.newBuilder().executor(task -> {
            tasks.incrementAndGet();
            pool.execute(task);
        }).build(), Duration.ofSeconds(2))) {
            assertThat(BatchProtocol.decode(own.get(batch(10), false).body())).hasSize(10);
        } finally {
            pool.shutdownNow();
        }
        assertThat(tasks).hasPositiveValue();
    }

    @Test
    void failuresAreDescribedForTheServersUnavailableReport() throws Exception {
        URI refusing = new IdServer(FakeServer.refusing(), 1, 1).batchUri(10);
        Exception refused = catchException(() -> transport.get(refusing, false));

        assertThat(transport.describe(refused)).startsWith("cannot connect (");
        assertThat(transport.describe(new HttpTimeoutException("request timed out"))).isEqualTo("timed out after 2000 ms");
        assertThat(transport.describe(new InvalidBatchException("asked for 10 IDs, got 9")))
                .isEqualTo("invalid batch: asked for 10 IDs, got 9");
        assertThat(transport.describe(new IOException("HTTP 404"))).isEqualTo("HTTP 404");
        assertThat(transport.describe(new IllegalStateException("odd"))).isEqualTo("IllegalStateException: odd");
    }

    private interface Exchange {
        void run() throws Exception;
    }

    private static Exception catchException(Exchange exchange) {
        try {
            exchange.run();
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("the exchange did not fail");
    }
}
