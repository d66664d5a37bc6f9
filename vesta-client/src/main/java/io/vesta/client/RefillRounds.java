package io.vesta.client;

import io.vesta.client.ServersUnavailableException.ServerFailure;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The rounds that refill a {@link PrefetchBuffer}, on threads of their own. A round asks the servers of a
 * {@link ServerRotation} in turn for a batch of the sizer's size, through the {@link PrefetchBuffer.BatchFetch} (in
 * production a {@link BatchFetcher}: HTTP, then the checks); at most {@value #MAX_ROUNDS} are under way at once.
 *
 * <p>While callers wait, a second round starts as soon as the server of the first has answered with its status and
 * headers, which it sends only once the whole batch is reserved: the server's generator then reserves the next batch
 * while the first one travels and is checked, rather than idling, and the second batch still comes after the first.
 * Batches are ready for the buffer in the order their rounds started, whatever order the rounds end in.
 *
 * <p>When a round gets nothing its failures are kept, and a round starts again when the first backoff ends, by the
 * ticker; the first batch a round delivers ends the failure.
 *
 * <p>Guarded by the buffer's lock: the buffer calls every method but {@link #refillInBackground()} and
 * {@link #close()}, which take it themselves, with the lock held, and the rounds take it to deliver.
 */
final class RefillRounds {

    /** Rounds that may be under way at once: the one fetching the next batch, and one more while callers wait. */
    private static final int MAX_ROUNDS = 2;

    private final ReentrantLock lock;
    private final Condition roundEnded;
    private final BatchSizer sizer;
    /** The share of a batch used when the round that fetches the next batch starts. */
    private final double refillThreshold;
    private final long maxAgeNanos;
    private final ServerRotation rotation;
    private final PrefetchBuffer.BatchFetch fetch;
    private final LongSupplier ticker;
    private final ScheduledThreadPoolExecutor refiller;

    // Guarded by lock.
    /** Batches delivered and not yet in use, in the order their rounds started. */
    private final ArrayDeque<PrefetchedBatch> ready = new ArrayDeque<>();
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

    /**
     * @param lock the buffer's lock, which guards the rounds' state and the buffer's alike
     * @param sizer how many IDs each round asks for; told how big and how fast each delivered batch was
     * @param refillThreshold the share of a batch used when the next is fetched, 0 to 1
     * @param rotation the servers a round asks, in turn, on the same {@code ticker}
     * @param fetch asks one server for a batch, on a refill thread
     * @param ticker the buffer's monotonic clock, in nanoseconds
     */
    RefillRounds(ReentrantLock lock, BatchSizer sizer, double refillThreshold, ServerRotation rotation,
            PrefetchBuffer.BatchFetch fetch, LongSupplier ticker) {
        this.lock = lock;
        this.roundEnded = lock.newCondition();
        this.sizer = sizer;
        this.refillThreshold = refillThreshold;
        this.maxAgeNanos = sizer.maxAgeNanos();
        this.rotation = rotation;
        this.fetch = fetch;
        this.ticker = ticker;
        this.refiller = new ScheduledThreadPoolExecutor(MAX_ROUNDS, task -> {
            Thread thread = new Thread(task, "vesta-client-refill");
            thread.setDaemon(true);
            return thread;
        });
        this.refiller.setRemoveOnCancelPolicy(true);
    }

    boolean closed() {
        return closed;
    }

    /** Whether no round is under way, none has a batch ready and the last did not fail: a new round may start. */
    boolean idle() {
        return !closed && inFlight == 0 && ready.isEmpty() && failure == null;
    }

    /**
     * Drops the ready batches grown too old at {@code tick}, counting their IDs in {@code expiredIds}: fetched ahead
     * and grown old waiting for their turn (a caller who waited for them was slower still).
     */
    void dropExpired(long tick, LongAdder expiredIds) {
        while (!ready.isEmpty() && ready.peek().expired(tick)) {
            ready.poll().drop(expiredIds);
            sizer.expiredUnused();
        }
    }

    /** The next batch in the order the rounds started, or null when none is ready. */
    PrefetchedBatch pollReady() {
        return ready.poll();
    }

    /** IDs in the ready batches. */
    long readyIds() {
        long buffered = 0;
        for (PrefetchedBatch batch : ready) {
            buffered += batch.remaining();
        }
        return buffered;
    }

    /** Why the last round got no batch, or null when it got one or none has ended. */
    List<ServerFailure> failure() {
        return failure;
    }

    /** Whether no round is under way and the first server's backoff has not ended at {@code nowNanos}. */
    boolean everyServerBackingOff(long nowNanos) {
        return inFlight == 0 && nowNanos - retryAtNanos < 0;
    }

    boolean underWay() {
        return inFlight > 0;
    }

    /** How many rounds have ended: a caller compares it before and after a wait. */
    long roundsEnded() {
        return roundsEnded;
    }

    /** Waits, with the lock held, for a round to end or {@code nanos} to pass, counted among the waiting callers. */
    void awaitRoundEnd(long nanos) throws InterruptedException {
        waiting++;
        try {
            roundEnded.awaitNanos(nanos);
        } finally {
            waiting--;
        }
    }

    /** How many callers are waiting for a round to end. */
    int waiting() {
        return waiting;
    }

    /** How many batches rounds have delivered. */
    long batchesFetched() {
        return batchesFetched.sum();
    }

    /** Stops the refill threads (interrupting a fetch under way) and drops the ready batches; wakes waiting callers. */
    void close() {
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

    /** Starts a round unless one is under way, a batch is ready or the last round failed (then the retry does). */
    void refillInBackground() {
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

    /** Starts a round on a refill thread, unless closed; call with the lock held. */
    void startRound() {
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
            ready.add(new PrefetchedBatch(round.ids(), refillThreshold, sentNanos, issuedNanos, maxAgeNanos));
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
}
