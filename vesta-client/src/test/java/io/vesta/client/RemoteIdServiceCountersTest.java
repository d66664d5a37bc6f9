package io.vesta.client;

import io.vesta.client.ServersUnavailableException.ServerFailure;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/** The counters a client keeps for health and meters, read without touching the path that hands out IDs. */
class RemoteIdServiceCountersTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }

    private FakeServer server(long machineId) throws IOException {
        FakeServer server = new FakeServer(machineId);
        resources.add(server);
        return server;
    }

    private RemoteIdService client(int prefetch, URI... servers) {
        RemoteIdService client = RemoteIdService.builder().servers(List.of(servers)).prefetch(prefetch)
                .backoff(Duration.ofMillis(50), Duration.ofMillis(400)).timeout(Duration.ofMillis(500)).build();
        resources.add(client);
        return client;
    }

    @Test
    void failuresAreCountedPerServerAndABatchFromTheNextServerIsAFailover() throws Exception {
        FakeServer failing = server(930);
        failing.behaviour = FakeServer.Behaviour.FAIL;
        FakeServer serving = server(931);

        // The first round starts at the first server: it fails, the second answers.
        RemoteIdService client = client(10, failing.uri(), serving.uri());
        Await.until(() -> client.batchesFetched() == 1);

        assertThat(client.serverFailures()).containsExactly(entry(failing.uri(), 1L), entry(serving.uri(), 0L));
        assertThat(client.failovers()).isEqualTo(1);
    }

    @Test
    void aBatchFromTheFirstServerAskedIsNoFailover() throws Exception {
        FakeServer serving = server(930);
        RemoteIdService client = client(10, serving.uri());
        Await.until(() -> client.batchesFetched() == 1);

        assertThat(client.failovers()).isZero();
        assertThat(client.serverFailures()).containsExactly(entry(serving.uri(), 0L));
    }

    @Test
    void bufferedIdsCountTheRestOfTheBatchInUseAndTheNextBatch() throws Exception {
        FakeServer server = server(930);
        RemoteIdService client = client(100, server.uri());
        Await.until(() -> client.batchesFetched() == 1);
        assertThat(client.bufferedIds()).as("the first batch, waiting").isEqualTo(100);

        client.genId();
        assertThat(client.bufferedIds()).isEqualTo(99);

        // The eleventh ID passes the refill threshold (a tenth): the next batch is fetched beside the current one.
        client.genIds(10);
        Await.until(() -> client.batchesFetched() == 2);
        assertThat(client.bufferedIds()).isEqualTo(89 + 100);
    }

    @Test
    void lastRoundFailuresListEachServerUntilOneAnswersAgain() throws Exception {
        FakeServer server = server(930);
        server.behaviour = FakeServer.Behaviour.FAIL;
        RemoteIdService client = client(10, server.uri());

        Await.until(() -> !client.lastRoundFailures().isEmpty());
        assertThat(client.lastRoundFailures()).extracting(ServerFailure::server).containsExactly(server.uri());
        assertThat(client.lastRoundFailures().get(0).error()).contains("HTTP 503");

        // Rounds go on after each backoff without any caller: the first that gets a batch clears the failures.
        server.behaviour = FakeServer.Behaviour.SERVE;
        Await.until(() -> client.batchesFetched() == 1);
        assertThat(client.lastRoundFailures()).isEmpty();
        assertThat(client.serverFailures().get(server.uri())).isPositive();
    }
}
