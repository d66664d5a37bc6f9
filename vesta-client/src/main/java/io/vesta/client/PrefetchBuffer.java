package io.vesta.client;

import io.vesta.client.ServersUnavailableException.ServerFailure;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The IDs in memory: the batch in use and the next one, fetched by background threads in rounds of a
 * {@link ServerRotation}. As in Leaf's double buffer, the next batch is fetched while the current one is still in
 * use: once the refill threshold of it is used, a round starts. Taking an ID is then an index increment on an
 * array; a caller waits only when both batches are used up before a server has answered. How many IDs a round asks
 * for follows how fast batches are used up ({@link BatchSizer}).
 *
 * <p>While callers wait, a second round starts as soon as the server of the first has answered with its status and
 * headers, which it sends only once the whole batch is reserved: the server's generator then reserves the next batch
 * while the first one travels and is checked, rather than idling, and the second batch still comes after the first.
 * Batches are used in the order their rounds started, whatever order the rounds end in.
 *
 * <p>When a round gets nothing, the failures are kept: a caller who would wait takes from the fallback if there is
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

    /** Rounds that may be under way at once: the one fetching the next batch, and one more while callers wait. */
    private static final int MAX_ROUNDS = 2;

    /** The share of a batch used when the round that fetches the next batch starts. */
    private final double refillThreshold;
    private final BatchSizer sizer;
    private final LongSupplier ticker;
    private final ServerRotation rotation;
    private final BatchFetch fetch;
    private final Duration timeout;
    private final LongSupplier fallback;
    private final long maxWaitNanos;
    private final ScheduledThreadPoolExecutor refiller;

    private volatile Batch current = Batch.EMPTY;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition roundEnded = lock.newCondition();
    // Guarded by lock.
    /** Batches delivered and not yet in use, in the order their rounds started. */
    private final ArrayDeque<Batch> ready = new ArrayDeque<>();
    /** Rounds under way, at most {@link #MAX_ROUNDS}. */
    private int inFlight;
    /** The number the next round gets; rounds deliver in this order. */
    private long roundsStarted;
    /** The number of the round whose result is delivered next. */
    private long nextToDeliver;
    /** Results of rounds that ended before an earlier round, by number; a null round threw. */
    private final TreeMap<Long, Ended> endedEarly = new TreeMap<>();
    /** Rounds started by {@link #reserved}, by number, until they are delivered. */
    private final Set<Long> overlapping = new HashSet<>();
    /** Callers waiting for a round to end. */
    private int waiting;
    private List<ServerFailure> failure;
    private long retryAtNanos;
    private long roundsEnded;
    private volatile boolean closed;

    private final LongAdder batchesFetched = new LongAdder();
    private final LongAdder expiredIds = new LongAdder();
    private final long maxAgeNanos;

    /**
     * Starts the round that fetches the first batch.
     * @param sizer how many IDs each round asks for
     * @param refillThreshold the share of a batch used when the next is fetched, 0 to 1
     * @param rotation the servers a round asks, in turn; on the same {@code ticker}
     * @param fetch asks one server for a batch, on the buffer's own thread
     * @param timeout the longest one server may take, which bounds a caller's wait for a round
     * @param fallback where an ID comes from while no server answers, or null to fail instead
     * @param ticker the monotonic clock, in nanoseconds, that times how long a batch lasts and when servers are
     *        asked again after a failed round
     */
    PrefetchBuffer(BatchSizer sizer, double refillThreshold, ServerRotation rotation, BatchFetch fetch, Duration timeout,
            LongSupplier fallback, LongSupplier ticker) {
        this.sizer = sizer;
        this.maxAgeNanos = sizer.maxAgeNanos();
        this.refillThreshold = refillThreshold;
        this.ticker = ticker;
        this.rotation = rotation;
        this.fetch = fetch;
        this.timeout = timeout;
        this.fallback = fallback;
        this.maxWaitNanos = rotation.size() * timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        this.refiller = new ScheduledThreadPoolExecutor(MAX_ROUNDS, task -> {
            Thread thread = new Thread(task, "vesta-client-refill");
            thread.setDaemon(true);
            return thread;
        });
        this.refiller.setRemoveOnCancelPolicy(true);
        lock.lock();
        try {
            startRound();
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
            Batch batch = current;
            // The age is checked before the ID is taken, so that an ID taken is an ID handed out.
            int index = batch.expired(ticker.getAsLong()) ? -1 : batch.take();
            if (index >= 0) {
                if (index == batch.refillIndex && batch.fetchAhead) {
                    refillInBackground();
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
        Batch batch = current;
        int start = batch.expired(ticker.getAsLong()) ? -1 : batch.take(count);
        if (start < 0) {
            return null;
        }
        if (start <= batch.refillIndex && batch.refillIndex < start + count && batch.fetchAhead) {
            refillInBackground();
        }
        return Arrays.copyOfRange(batch.ids, start, start + count);
    }

    /** How many callers are waiting for a round to end: for tests that must act only once a caller waits. */
    int callersWaiting() {
        lock.lock();
        try {
            return waiting;
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
        return batchesFetched.sum();
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
            long buffered = current.remaining();
            for (Batch batch : ready) {
                buffered += batch.remaining();
            }
            return buffered;
        } finally {
            lock.unlock();
        }
    }

    /** Why the last round got no batch, each server in the order tried; empty when it got one or none has ended. */
    List<ServerFailure> lastRoundFailures() {
        lock.lock();
        try {
            return failure == null ? List.of() : failure;
        } finally {
            lock.unlock();
        }
    }

    /** Stops the refill thread (interrupting a fetch under way); IDs still in memory are dropped: gaps, never repeats. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            ready.clear();
            roundEnded.signalAll();
        } finally {
            lock.unlock();
        }
        refiller.shutdownNow();
    }

    /**
     * Called when {@code exhausted} has no ID left: makes the next batch current, or waits for the round that
     * fetches it. Returns false when the caller should take from {@link #current} again, true when it should
     * take from the fallback; throws when there is neither.
     */
    private boolean advance(Batch exhausted) {
        boolean interrupted = false;
        lock.lock();
        try {
            long seenRounds = roundsEnded;
            // The wait is bounded in real time, the time Condition.awaitNanos waits in, not by the ticker: a ticker a
            // test holds still (or moves on by seconds) must neither hold a caller forever nor end its wait early.
            long deadline = System.nanoTime() + maxWaitNanos;
            while (true) {
                if (closed) {
                    throw new IllegalStateException("This RemoteIdService is closed");
                }
                if (current != exhausted) {
                    return false;
                }
                long tick = ticker.getAsLong();
                int used = exhausted.used();
                boolean expired = exhausted.expired(tick) && exhausted.drop(expiredIds);
                while (!ready.isEmpty() && ready.peek().expired(tick)) {
                    // Fetched ahead and grown old waiting for its turn (a caller who waited for it was slower still).
                    ready.poll().drop(expiredIds);
                    sizer.expiredUnused();
                }
                if (!ready.isEmpty()) {
                    // Starved when this caller waited for the next batch to arrive.
                    use(ready.poll(), exhausted, used, expired, roundsEnded != seenRounds, tick);
                    return false;
                }
                // The caller will wait for the next batch (or take from the fallback): the sizer learns of it now, so
                // that the round this caller starts asks for what it can use.
                endOfUse(exhausted, used, expired, true, tick);
                long now = ticker.getAsLong();
                if (failure != null) {
                    boolean roundFailedWhileWaiting = roundsEnded != seenRounds;
                    boolean everyServerBackingOff = inFlight == 0 && now - retryAtNanos < 0;
                    if (fallback != null) {
                        if (inFlight == 0 && !everyServerBackingOff) {
                            startRound();
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
                if (inFlight == 0) {
                    startRound();
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    throw new IllegalStateException("No batch of IDs arrived within " + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos)
                            + " ms (" + rotation.size() + " servers, timeout " + timeout.toMillis() + " ms each)");
                }
                waiting++;
                try {
                    roundEnded.awaitNanos(remaining);
                } catch (InterruptedException e) {
                    // The wait is bounded; like the generator's own waits, an interrupt does not cut it short.
                    interrupted = true;
                } finally {
                    waiting--;
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
    private void use(Batch batch, Batch exhausted, int used, boolean expired, boolean starved, long now) {
        endOfUse(exhausted, used, expired, starved, now);
        batch.inUseSinceNanos = now;
        batch.fetchAhead = sizer.fetchAhead();
        current = batch;
        if (starved && batch.fetchAhead && !closed && inFlight == 0 && ready.isEmpty() && failure == null) {
            // Callers are ahead of the fetches: ask for the next batch now rather than at this one's refill index, so
            // the server's generator idles only while a batch travels.
            startRound();
        }
    }

    /** Tells the sizer how {@code exhausted} was used, once; call with the lock held. */
    private void endOfUse(Batch exhausted, int used, boolean expired, boolean starved, long now) {
        if (exhausted != Batch.EMPTY && !exhausted.ended) {
            exhausted.ended = true;
            // A caller who waits for a batch the buffer did not fetch ahead (calls are rare) is not starved: it waits
            // by design, and the batch should not grow for it.
            sizer.ended(used, now - exhausted.inUseSinceNanos, now - exhausted.issuedNanos, expired,
                    starved && exhausted.fetchAhead);
        }
    }

    private void refillInBackground() {
        lock.lock();
        try {
            if (!closed && inFlight == 0 && ready.isEmpty() && failure == null) {
                startRound();
            }
        } finally {
            lock.unlock();
        }
    }

    private void retryAfterBackoff() {
        lock.lock();
        try {
            if (!closed && inFlight == 0 && ready.isEmpty() && failure != null) {
                startRound();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Call with the lock held. */
    private void startRound() {
        if (closed) {
            return;
        }
        inFlight++;
        long number = roundsStarted++;
        int size = sizer.size();
        try {
            refiller.execute(() -> runRound(number, size));
        } catch (RejectedExecutionException e) {
            // Only after close(): nothing is delivered any more.
            inFlight--;
            roundsStarted--;
        }
    }

    private void runRound(long number, int size) {
        ServerRotation.Round round = null;
        // When the request to the server that answered was sent (its IDs were issued after that), and when the server
        // had reserved them all (its answer's headers arrived, or else its body).
        long[] sentNanos = new long[1];
        long[] reservedNanos = new long[1];
        boolean[] reservedSeen = new boolean[1];
        try {
            round = rotation.run(server -> {
                sentNanos[0] = ticker.getAsLong();
                reservedSeen[0] = false;
                if (closed) {
                    // A round that outlives close() asks no further server.
                    throw new InterruptedException("closed");
                }
                return fetch.fetch(server, size, () -> {
                    reservedNanos[0] = ticker.getAsLong();
                    reservedSeen[0] = true;
                    reserved(number);
                });
            });
        } finally {
            // Whatever happened, the round must end here, or no round would ever start again and every caller
            // would wait out its timeout with the fallback unused.
            endRound(number, round, sentNanos[0], reservedSeen[0] ? reservedNanos[0] : ticker.getAsLong());
        }
    }

    /**
     * The server of round {@code number} has reserved its batch. If callers are waiting for it, the next round starts
     * now, so that the server reserves the batch after this one while this one travels: after it, so in order.
     */
    private void reserved(long number) {
        lock.lock();
        try {
            if (!closed && waiting > 0 && inFlight < MAX_ROUNDS && number == roundsStarted - 1 && ready.isEmpty()
                    && failure == null && sizer.fetchAhead()) {
                overlapping.add(roundsStarted);
                startRound();
            }
        } finally {
            lock.unlock();
        }
    }

    private void endRound(long number, ServerRotation.Round round, long sentNanos, long reservedNanos) {
        lock.lock();
        try {
            inFlight--;
            roundsEnded++;
            endedEarly.put(number, new Ended(round, sentNanos, reservedNanos));
            // Deliver in the order the rounds started: a round that ended before an earlier one waits for it.
            while (endedEarly.containsKey(nextToDeliver)) {
                boolean overlapped = overlapping.remove(nextToDeliver);
                Ended ended = endedEarly.remove(nextToDeliver++);
                deliver(ended.round, ended.sentNanos, ended.reservedNanos, overlapped);
            }
            roundEnded.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Call with the lock held.
     * @param overlapped whether the round was started while the one before it was under way ({@link #reserved}): if
     *        that one failed too, its failures stand, since they are why this one found its servers backing off
     */
    private void deliver(ServerRotation.Round round, long sentNanos, long reservedNanos, boolean overlapped) {
        if (round != null && round.ids() != null) {
            batchesFetched.increment();
            // When the server likely issued the first ID: it had them all by reservedNanos, and spent at least the
            // span of their times issuing them. A server at its MAX_PEAK ceiling holds a request until the next
            // second and then issues the batch at once: the hold is not age, and should not shrink the batches.
            long span = fetch.issueSpanNanos(round.ids());
            long issuedNanos = Math.max(sentNanos, reservedNanos - span);
            sizer.issued(round.ids().length, span);
            ready.add(new Batch(round.ids(), refillThreshold, sentNanos, issuedNanos, maxAgeNanos));
            failure = null;
        } else if (!closed) {
            if (!(overlapped && failure != null)) {
                failure = round != null ? round.failures() : List.of();
            }
            long now = ticker.getAsLong();
            retryAtNanos = rotation.retryAtNanos(now);
            try {
                refiller.schedule(this::retryAfterBackoff, Math.max(0, retryAtNanos - now), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                // closed meanwhile
            }
        }
    }

    /** A round's result, when the request that got it was sent and when the server had reserved it; a null round threw. */
    private record Ended(ServerRotation.Round round, long sentNanos, long reservedNanos) {
    }

    /** IDs of one server's one reservation, handed out by index. */
    private static final class Batch {

        static final Batch EMPTY = new Batch(new long[0], 0, 0, 0, 0);

        final long[] ids;
        /** Taking the ID at this index starts the round that fetches the next batch; -1 for the empty batch. */
        final int refillIndex;
        /**
         * When the server likely issued the first ID, by the buffer's ticker: not before the request was sent; how
         * old the batch's IDs are for sizing the next, whereas their expiry counts from the request, to be safe.
         */
        final long issuedNanos;
        /** From this reading of the buffer's ticker on, no ID of the batch may be handed out. */
        final long expiresAtNanos;
        /** When the batch became the one in use, by the buffer's ticker; written and read under the buffer's lock. */
        long inUseSinceNanos;
        /** Whether reaching the refill index fetches the next batch; written before the batch is published as current. */
        boolean fetchAhead = true;
        /** Whether the sizer has learnt how the batch was used; under the buffer's lock. */
        boolean ended;
        private final AtomicInteger taken = new AtomicInteger();

        Batch(long[] ids, double refillThreshold, long sentNanos, long issuedNanos, long maxAgeNanos) {
            this.ids = ids;
            this.refillIndex = (int) Math.min(ids.length - 1, Math.round(ids.length * refillThreshold));
            this.issuedNanos = issuedNanos;
            this.expiresAtNanos = sentNanos + maxAgeNanos;
        }

        /** Whether the batch is too old to hand out an ID at {@code nowNanos}; never for the empty batch. */
        boolean expired(long nowNanos) {
            return ids.length > 0 && nowNanos - expiresAtNanos >= 0;
        }

        /** IDs handed out so far. */
        int used() {
            return Math.min(ids.length, taken.get());
        }

        /**
         * Takes every ID left, so that none is handed out any more, and counts them in {@code dropped}.
         * @return whether any was left
         */
        boolean drop(LongAdder dropped) {
            int before = taken.getAndSet(ids.length);
            int left = ids.length - Math.min(before, ids.length);
            if (left > 0) {
                dropped.add(left);
            }
            return left > 0;
        }

        /** IDs not yet handed out; the counter may have overshot the end. */
        int remaining() {
            return Math.max(0, ids.length - taken.get());
        }

        /** The index of the next ID, or -1 when the batch is used up. */
        int take() {
            // Reading before incrementing keeps the counter from running on (and wrapping) while callers wait
            // or use the fallback on a used-up batch: at most one overshoot per racing thread.
            if (taken.get() >= ids.length) {
                return -1;
            }
            int index = taken.getAndIncrement();
            return index < ids.length ? index : -1;
        }

        /** The first index of {@code count} consecutive IDs, or -1 when fewer are left. */
        int take(int count) {
            if (taken.get() > ids.length - count) {
                return -1;
            }
            int start = taken.getAndAdd(count);
            return start <= ids.length - count ? start : -1;
        }
    }
}
