package io.vesta.client;

import io.vesta.client.ServersUnavailableException.ServerFailure;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class ServerRotationTests {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final List<IdServer> servers = IntStream.range(0, 3)
            .mapToObj(i -> new IdServer(URI.create("http://10.0.0." + i + ":8080"), SECOND, 4 * SECOND)).toList();
    /** The clock the rotation times backoff by: moved by the tests, never by real time. */
    private final AtomicLong ticker = new AtomicLong(1000 * SECOND);
    private final ServerRotation rotation = new ServerRotation(servers, e -> "described " + e.getMessage(), ticker::get);
    private final List<URI> asked = new ArrayList<>();

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    private long[] answer(IdServer server) {
        asked.add(server.base());
        return new long[] { 42 };
    }

    @Test
    void eachRoundStartsOneServerFurtherAlong() {
        for (int round = 0; round < 4; round++) {
            assertThat(rotation.run(this::answer).ids()).containsExactly(42);
        }

        assertThat(asked).containsExactly(servers.get(0).base(), servers.get(1).base(), servers.get(2).base(),
                servers.get(0).base());
    }

    @Test
    void aFailingServerIsBackedOffAndTheRoundMovesToTheNext() {
        ServerRotation.Round round = rotation.run(server -> {
            if (server == servers.get(0)) {
                throw new IOException("down");
            }
            return answer(server);
        });

        assertThat(round.ids()).containsExactly(42);
        assertThat(round.failures()).extracting(ServerFailure::error).containsExactly("described down");
        assertThat(servers.get(0).backingOff(ticker.get())).isTrue();
        assertThat(servers.get(1).backingOff(ticker.get())).isFalse();

        // The next rounds start at servers 1 and 2; the one after skips server 0 while it backs off.
        rotation.run(this::answer);
        rotation.run(this::answer);
        asked.clear();
        ServerRotation.Round skipping = rotation.run(this::answer);
        assertThat(asked).containsExactly(servers.get(1).base());
        assertThat(skipping.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.skipped()).isTrue();
            assertThat(failure.error()).isEqualTo("described down");
        });
    }

    /** The backoff is timed by the injected ticker alone: real time passing changes nothing, the ticker moving does. */
    @Test
    void aServerBackingOffIsAskedAgainOnceTheTickerPassesTheEndOfItsBackoff() throws Exception {
        rotation.run(server -> {
            throw new IOException("down");
        });
        assertThat(servers).allMatch(server -> server.backingOff(ticker.get()));
        Thread.sleep(5);

        ticker.addAndGet(SECOND - 1);
        assertThat(rotation.run(this::answer).ids()).as("a nanosecond of backoff left").isNull();
        assertThat(asked).isEmpty();

        ticker.addAndGet(1);
        assertThat(rotation.run(this::answer).ids()).containsExactly(42);
        assertThat(asked).hasSize(1);
    }

    @Test
    void anErrorCountsAsThatServersFailureAndTheRoundStillEnds() {
        ServerRotation.Round round = rotation.run(server -> {
            if (server == servers.get(2)) {
                throw new IllegalStateException("bad answer");
            }
            throw new LinkageError("no class");
        });

        assertThat(round.ids()).isNull();
        assertThat(round.failures()).extracting(ServerFailure::error).containsExactly(
                "failed unexpectedly: java.lang.LinkageError: no class", "failed unexpectedly: java.lang.LinkageError: no class",
                "described bad answer");
        assertThat(servers).allMatch(server -> server.backingOff(ticker.get()));
    }

    @Test
    void anInterruptEndsTheRoundAtOnceAndStaysSet() {
        ServerRotation.Round round = rotation.run(server -> {
            asked.add(server.base());
            throw new InterruptedException();
        });

        assertThat(round.ids()).isNull();
        assertThat(asked).hasSize(1);
        assertThat(round.failures()).singleElement().satisfies(failure -> assertThat(failure.error()).isEqualTo("interrupted"));
        assertThat(servers.get(0).backingOff(ticker.get())).as("an interrupt is not the server's fault").isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
    }

    @Test
    void theRetryIsDueWhenTheFirstBackoffEnds() {
        long now = ticker.get();
        assertThat(rotation.retryAtNanos(now)).as("no server backing off: at once").isEqualTo(now);

        servers.get(0).failed("a", now);
        servers.get(0).failed("a", now);
        servers.get(1).failed("b", now);
        servers.get(2).failed("c", now + SECOND / 2);

        assertThat(rotation.retryAtNanos(now)).isEqualTo(now + SECOND);
        assertThat(rotation.skippedAll(now)).extracting(ServerFailure::error).containsExactly("a", "b", "c");
        assertThat(rotation.skippedAll(now)).allMatch(ServerFailure::skipped);
    }
}
