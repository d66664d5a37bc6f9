package io.vesta.client;

import io.vesta.client.ServersUnavailableException.ServerFailure;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The order in which servers are asked for a batch, and the one loop that asks them, used by the background refill
 * and by a caller's own fetch alike. Each round starts one server further along the list than the previous round, so
 * that load spreads and a restarted server is back in the rotation at once; a server that is backing off is skipped,
 * a server that fails is put into backoff and the round moves on to the next.
 */
final class ServerRotation {

    /** Asks one server for a batch. */
    @FunctionalInterface
    interface Fetch {
        long[] from(IdServer server) throws IOException, InterruptedException;
    }

    /**
     * What one round got: the IDs of the server that answered, or null when none did; and why each server asked or
     * skipped before it did not answer, in the order tried.
     */
    record Round(long[] ids, List<ServerFailure> failures) {
    }

    private final List<IdServer> servers;
    private final Function<Exception, String> describe;
    private final LongSupplier ticker;
    private final AtomicInteger nextStart = new AtomicInteger();
    private final LongAdder failovers = new LongAdder();

    /**
     * @param servers at least one
     * @param describe what went wrong when a fetch threw, in words for a {@link ServerFailure}
     * @param ticker the monotonic clock, in nanoseconds, that times the servers' backoff: the prefetch buffer's, so
     *        that one clock ages batches and says when a server is asked again
     */
    ServerRotation(List<IdServer> servers, Function<Exception, String> describe, LongSupplier ticker) {
        this.servers = List.copyOf(servers);
        this.describe = describe;
        this.ticker = ticker;
    }

    /**
     * Asks the servers in turn until one answers. The round ends whatever a fetch throws: an {@link Error} (a
     * LinkageError, an AssertionError from an HTTP client of the user's) counts as that server's failure, so that
     * the caller always learns how the round ended and a background refill is never left waiting for it. An
     * interrupt ends the round at once and stays set on the thread.
     */
    Round run(Fetch fetch) {
        int start = nextStart.getAndUpdate(i -> (i + 1) % servers.size());
        List<ServerFailure> failures = new ArrayList<>(servers.size());
        for (int k = 0; k < servers.size(); k++) {
            IdServer server = servers.get((start + k) % servers.size());
            long now = ticker.getAsLong();
            if (server.backingOff(now)) {
                failures.add(server.skipped(now));
                continue;
            }
            try {
                long[] ids = fetch.from(server);
                server.succeeded();
                if (!failures.isEmpty()) {
                    failovers.increment();
                }
                return new Round(ids, failures);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failures.add(new ServerFailure(server.base(), "interrupted", false, 0));
                break;
            } catch (IOException | RuntimeException e) {
                failures.add(server.failed(describe.apply(e), ticker.getAsLong()));
            } catch (Error e) {
                failures.add(server.failed("failed unexpectedly: " + e, ticker.getAsLong()));
            }
        }
        return new Round(null, failures);
    }

    /** Every server as skipped, for a caller who arrives while all of them are backing off. */
    List<ServerFailure> skippedAll(long nowNanos) {
        return servers.stream().map(server -> server.skipped(nowNanos)).toList();
    }

    /** When the first backoff ends, by the ticker: that server is the first worth asking again. */
    long retryAtNanos(long nowNanos) {
        long retryAt = 0;
        for (int i = 0; i < servers.size(); i++) {
            IdServer server = servers.get(i);
            long until = server.backingOff(nowNanos) ? server.backoffUntilNanos() : nowNanos;
            if (i == 0 || until - retryAt < 0) {
                retryAt = until;
            }
        }
        return retryAt;
    }

    /** How many rounds got their IDs from a server after another one failed or was skipped as backing off. */
    long failovers() {
        return failovers.sum();
    }

    /** How many times each server failed, timed out or sent an invalid batch, in configured order. */
    Map<URI, Long> failuresByServer() {
        Map<URI, Long> failures = new LinkedHashMap<>();
        servers.forEach(server -> failures.put(server.base(), server.failures()));
        return failures;
    }

    /** How many servers take turns. */
    int size() {
        return servers.size();
    }

    /** The servers' base URLs, in configured order. */
    List<URI> bases() {
        return servers.stream().map(IdServer::base).toList();
    }

    @Override
    public String toString() {
        return servers.toString();
    }
}
