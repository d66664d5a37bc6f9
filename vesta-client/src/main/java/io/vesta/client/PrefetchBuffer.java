package io.vesta.client;

import io.vesta.client.ServersUnavailableException.ServerFailure;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The IDs in memory: the batch in use and the next one, fetched by background threads in rounds
 * ({@link RefillRounds}) over a {@link ServerRotation}. As in Leaf's double buffer, the next batch is fetched while the current one is still in
 * use: once the refill threshold of it is used, a round starts. Taking an ID is then an index increment on an
 * array; a caller waits only when both batches are used up before a server has answered. How many IDs a round asks
 * for follows how fast batches are used up ({@link BatchSizer}).
 *
 * <p>Batches are used in the order their rounds started, whatever order the rounds end in. When a round gets nothing, the failures are kept: a caller who would wait takes from the fallback if there is
 * one, else fails with them (at once while every server is backing off), and a round starts again when the first
 * backoff ends. The first batch a round delivers ends the failure.
 *
 * <p><b>Age.</b> No ID is handed out more than the sizer's age bound after the request that fetched it was sent, by
 * the buffer's monotonic ticker: the server cannot have issued it before that, so the bound holds whatever the two
 * machines' wall clocks say. Each call reads the ticker before it takes an ID; a batch found too old is dropped, its
 * remaining IDs counted ({@link #expiredIds()}), and the call goes on to the next batch, or waits for a fresh one.
 * While calls are rare the sizer says not to fetch ahead, and a batch is fetched only when a call needs it.
 */
final class PrefetchBuffer implements AutoCloseable {

    /**
     * Asks one server for a batch of the given size: a {@link BatchFetcher}, or a function in tests that need no
     * HTTP.
     */
    @FunctionalInterface
    interface BatchFetch {
        /**
         * @param onReserved to be called once the server has reserved the whole batch (its answer's headers arrived),
         *        before the body is read; may be ignored
         */
        long[] fetch(IdServer server, int count, Runnable onReserved) throws IOException, InterruptedException;

        /**
         * How long, at least, the server took to issue a batch, in nanoseconds, from the IDs' times: the last one's
         * less the first one's, less one time unit (the fields are truncated), never below 0. By default 0: nothing
         * known, so the sizer does not cap the next request by the server's pace.
         */
        default long issueSpanNanos(long[] ids) {
            return 0;
        }
    }

    private final BatchSizer sizer;
    private final LongSupplier ticker;
    private final ServerRotation rotation;
    private final Duration timeout;
    private final LongSupplier fallback;
    private final long maxWaitNanos;

    private volatile PrefetchedBatch current = PrefetchedBatch.EMPTY;

    /** Guards the switch from one batch to the next here, and the rounds' state. */
    private final ReentrantLock lock = new ReentrantLock();
    private final RefillRounds rounds;

    private final LongAdder expiredIds = new LongAdder();

    /**
     * Starts the round that fetches the first batch.
     * @param sizer how many IDs each round asks for
     * @param refillThreshold the share of a batch used when the next is fetched, 0 to 1
     * @param rotation the servers a round asks, in turn; on the same {@code ticker}
     * @param fetch asks one server for a batch, on a refill thread
     * @param timeout the longest one server may take, which bounds a caller's wait for a round
     * @param fallback where an ID comes from while no server answers, or null to fail instead
     * @param ticker the monotonic clock, in nanoseconds, that times how long a batch lasts and when servers are
     *        asked again after a failed round
     */
    PrefetchBuffer(BatchSizer sizer, double refillThreshold, ServerRotation rotation, BatchFetch fetch, Duration timeout,
            LongSupplier fallback, LongSupplier ticker) {
        this.sizer = sizer;
        this.ticker = ticker;
        this.rotation = rotation;
        this.timeout = timeout;
        this.fallback = fallback;
        this.maxWaitNanos = rotation.size() * timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        this.rounds = new RefillRounds(lock, sizer, refillThreshold, rotation, fetch, ticker);
        lock.lock();
        try {
            rounds.startRound();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next ID, or one of the fallback's when no server answers.
     * @throws ServersUnavailableException when no server answers and there is no fallback
     * @throws IllegalStateException when the buffer is closed, or no round ends in time
     */
    long nextId() {
        while (true) {
            PrefetchedBatch batch = current;
            // The age is checked before the ID is taken, so that an ID taken is an ID handed out.
            int index = batch.expired(ticker.getAsLong()) ? -1 : batch.take();
            if (index >= 0) {
                if (index == batch.refillIndex && batch.fetchAhead) {
                    rounds.refillInBackground();
                }
                return batch.ids[index];
            }
            if (advance(batch)) {
                return fallback.getAsLong();
            }
        }
    }

    /**
     * {@code count} consecutive IDs of the current batch, so that they come from one server's one reservation and
     * are strictly increasing; null when it has fewer left.
     */
    long[] take(int count) {
        PrefetchedBatch batch = current;
        int start = batch.expired(ticker.getAsLong()) ? -1 : batch.take(count);
        if (start < 0) {
            return null;
        }
        if (start <= batch.refillIndex && batch.refillIndex < start + count && batch.fetchAhead) {
            rounds.refillInBackground();
        }
        return Arrays.copyOfRange(batch.ids, start, start + count);
    }

    /** How many callers are waiting for a round to end: for tests that must act only once a caller waits. */
    int callersWaiting() {
        lock.lock();
        try {
            return rounds.waiting();
        } finally {
            lock.unlock();
        }
    }

    /** How many IDs the next round asks for. */
    int batchSize() {
        lock.lock();
        try {
            return sizer.size();
        } finally {
            lock.unlock();
        }
    }

    /** How many batches rounds have delivered. */
    long batchesFetched() {
        return rounds.batchesFetched();
    }

    /** How many IDs were dropped unissued because they grew older than the age bound. */
    long expiredIds() {
        return expiredIds.sum();
    }

    /** Whether the next batch is fetched while the current one is in use; false while calls are rare. */
    boolean fetchesAhead() {
        lock.lock();
        try {
            return sizer.fetchAhead();
        } finally {
            lock.unlock();
        }
    }

    /** IDs in memory not yet handed out: the rest of the batch in use and the next batch, if it has arrived. */
    long bufferedIds() {
        // Under the lock, which every switch from one batch to the next holds, so that no batch is counted twice
        // or missed; callers taking IDs do not take it.
        lock.lock();
        try {
            return current.remaining() + rounds.readyIds();
        } finally {
            lock.unlock();
        }
    }

    /** Why the last round got no batch, each server in the order tried; empty when it got one or none has ended. */
    List<ServerFailure> lastRoundFailures() {
        lock.lock();
        try {
            List<ServerFailure> failure = rounds.failure();
            return failure == null ? List.of() : failure;
        } finally {
            lock.unlock();
        }
    }

    /** Stops the refill thread (interrupting a fetch under way); IDs still in memory are dropped: gaps, never repeats. */
    @Override
    public void close() {
        rounds.close();
    }

    /**
     * Called when {@code exhausted} has no ID left: makes the next batch current, or waits for the round that
     * fetches it. Returns false when the caller should take from {@link #current} again, true when it should
     * take from the fallback; throws when there is neither.
     */
    private boolean advance(PrefetchedBatch exhausted) {
        boolean interrupted = false;
        lock.lock();
        try {
            long seenRounds = rounds.roundsEnded();
            // The wait is bounded in real time, the time Condition.awaitNanos waits in, not by the ticker: a ticker a
            // test holds still (or moves on by seconds) must neither hold a caller forever nor end its wait early.
            long deadline = System.nanoTime() + maxWaitNanos;
            while (true) {
                if (rounds.closed()) {
                    throw new IllegalStateException("This RemoteIdService is closed");
                }
                if (current != exhausted) {
                    return false;
                }
                long tick = ticker.getAsLong();
                int used = exhausted.used();
                boolean expired = exhausted.expired(tick) && exhausted.drop(expiredIds);
                rounds.dropExpired(tick, expiredIds);
                PrefetchedBatch next = rounds.pollReady();
                if (next != null) {
                    // Starved when this caller waited for the next batch to arrive.
                    use(next, exhausted, used, expired, rounds.roundsEnded() != seenRounds, tick);
                    return false;
                }
                // The caller will wait for the next batch (or take from the fallback): the sizer learns of it now, so
                // that the round this caller starts asks for what it can use.
                endOfUse(exhausted, used, expired, true, tick);
                long now = ticker.getAsLong();
                List<ServerFailure> failure = rounds.failure();
                if (failure != null) {
                    boolean roundFailedWhileWaiting = rounds.roundsEnded() != seenRounds;
                    boolean everyServerBackingOff = rounds.everyServerBackingOff(now);
                    if (fallback != null) {
                        if (!rounds.underWay() && !everyServerBackingOff) {
                            rounds.startRound();
                        }
                        return true;
                    }
                    if (roundFailedWhileWaiting) {
                        throw new ServersUnavailableException(failure);
                    }
                    if (everyServerBackingOff) {
                        throw new ServersUnavailableException(rotation.skippedAll(now));
                    }
                }
                if (!rounds.underWay()) {
                    rounds.startRound();
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new IllegalStateException("No batch of IDs arrived within " + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos)
                            + " ms (" + rotation.size() + " servers, timeout " + timeout.toMillis() + " ms each)");
                }
                try {
                    rounds.awaitRoundEnd(remaining);
                } catch (InterruptedException e) {
                    // The wait is bounded; like the generator's own waits, an interrupt does not cut it short.
                    interrupted = true;
                }
            }
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Makes {@code batch} the one in use, after {@code exhausted}; call with the lock held.
     * @param used how many IDs of {@code exhausted} were handed out
     * @param expired whether {@code exhausted} ended by growing too old rather than used up
     */
    private void use(PrefetchedBatch batch, PrefetchedBatch exhausted, int used, boolean expired, boolean starved, long now) {
        endOfUse(exhausted, used, expired, starved, now);
        batch.inUseSinceNanos = now;
        batch.fetchAhead = sizer.fetchAhead();
        current = batch;
        if (starved && batch.fetchAhead && rounds.idle()) {
            // Callers are ahead of the fetches: ask for the next batch now rather than at this one's refill index, so
            // the server's generator idles only while a batch travels.
            rounds.startRound();
        }
    }

    /** Tells the sizer how {@code exhausted} was used, once; call with the lock held. */
    private void endOfUse(PrefetchedBatch exhausted, int used, boolean expired, boolean starved, long now) {
        if (exhausted != PrefetchedBatch.EMPTY && !exhausted.ended) {
            exhausted.ended = true;
            // A caller who waits for a batch the buffer did not fetch ahead (calls are rare) is not starved: it waits
            // by design, and the batch should not grow for it.
            sizer.ended(used, now - exhausted.inUseSinceNanos, now - exhausted.issuedNanos, expired,
                    starved && exhausted.fetchAhead);
        }
    }
}
