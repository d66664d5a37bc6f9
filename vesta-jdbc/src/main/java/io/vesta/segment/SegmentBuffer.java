package io.vesta.segment;

import java.sql.SQLException;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One tag's double buffer: the segment numbers are drawn from ({@link #current}) and the one loaded ahead of it
 * ({@link #next}). Callers draw from {@code current} without a lock ({@link Segment#draw}); this class does the rest:
 * {@link #refill} starts the background load once a caller has drawn past the refill threshold, and
 * {@link #advance} switches to the next segment once the current one is used up, waiting for the load in flight or
 * loading in the caller's thread. At most one load is in flight: it is owned by whoever sets {@link #loading} from
 * null, which also orders the step bookkeeping from one load to the next.
 */
final class SegmentBuffer {

    private static final System.Logger LOG = System.getLogger(SegmentIdService.class.getName());

    final String bizTag;
    private final SegmentSource source;
    private final SegmentTags tags;
    private final ReentrantLock lock = new ReentrantLock();
    /** Starts used up, so the first caller takes the slow path and loads. */
    volatile Segment current = new Segment(0, 0, 0);
    volatile Segment next;
    final AtomicReference<CompletableFuture<Segment>> loading = new AtomicReference<>();
    volatile boolean retired;
    private volatile long retryNotBefore = Long.MIN_VALUE;
    /**
     * How many loads in a caller's thread failed, and the last one's failure; written under {@link #lock}, read
     * before it by a caller about to queue, so that it can tell a failure that came while it queued.
     */
    private volatile long callerFailures;
    private volatile Throwable callerFailure;

    // Written only by the owner of `loading`; volatile for the monitoring view.
    private volatile int step;
    private volatile int tableStep;
    private volatile long lastLoadAt = Long.MIN_VALUE;
    private volatile String lastFailure;
    private volatile boolean failing;
    /** The last segment whose successor was not ready when it ran out; guarded by {@code lock}. */
    private Segment waitedFor;
    // What the last sweep saw, and since when; guarded by SegmentTags' sweep lock.
    Segment seenSegment;
    long seenCursor;
    long seenSince;

    final LongAdder loads = new LongAdder();
    private final LongAdder failedLoads = new LongAdder();
    private final LongAdder waits = new LongAdder();

    SegmentBuffer(String bizTag, SegmentSource source, SegmentTags tags) {
        this.bizTag = bizTag;
        this.source = source;
        this.tags = tags;
        this.seenSince = source.timeSource.currentTimeMillis();
    }

    SegmentView view() {
        Segment segment = current;
        Segment waiting = next;
        long loadedAt = lastLoadAt;
        return new SegmentView(bizTag, segment.start, segment.end, Math.min(segment.cursor, segment.end),
                step, tableStep, waiting != null, waiting == null ? 0 : waiting.start, waiting == null ? 0 : waiting.end,
                loading.get() != null, loadedAt == Long.MIN_VALUE ? null : Instant.ofEpochMilli(loadedAt),
                loads.sum(), failedLoads.sum(), waits.sum(), lastFailure);
    }

    /**
     * Starts loading the next segment once a caller has drawn past the threshold. Checked on every draw past
     * it rather than once, so that a failed load is retried (after the retry interval) while numbers last.
     */
    void refill(Segment segment) {
        if (next != null || loading.get() != null || current != segment) {
            return;
        }
        long now = source.timeSource.currentTimeMillis();
        if (now < retryNotBefore) {
            return;
        }
        CompletableFuture<Segment> load = new CompletableFuture<>();
        if (!loading.compareAndSet(null, load)) {
            return;
        }
        try {
            source.inBackground(() -> loadInBackground(load, now));
        } catch (RejectedExecutionException closedNow) {
            loading.set(null);
            load.completeExceptionally(closedNow);
        }
    }

    private void loadInBackground(CompletableFuture<Segment> load, long requestedAt) {
        Segment segment = null;
        Throwable failure = null;
        try {
            segment = load(requestedAt, false);
            // Published before loading is cleared, so a hot-path caller never sees neither and starts a second load.
            next = segment;
        } catch (Throwable e) {
            failure = e;
            retryNotBefore = source.timeSource.currentTimeMillis() + source.retryIntervalMillis;
        } finally {
            loading.set(null);
        }
        if (failure == null) {
            load.complete(segment);
        } else {
            load.completeExceptionally(failure);
        }
    }

    /**
     * The slow path: {@code used} gave this caller nothing (more). Switches to the next segment, waiting for
     * the load in flight or loading in this thread when there is none. Returns the buffer to carry on with:
     * another one when this one was dropped after its tag's first load failed.
     */
    SegmentBuffer advance(Segment used, boolean mayCreate) {
        tags.sweepIfDue(source.timeSource.currentTimeMillis());
        long callerFailuresBefore = callerFailures;
        lock.lock();
        try {
            if (retired) {
                if (callerFailures != callerFailuresBefore) {
                    // The tag's first load failed while this caller queued: its failure, as below.
                    throw new SegmentUnavailableException(bizTag, source.table.table(), callerFailure);
                }
                return tags.buffer(bizTag);
            }
            if (current != used) {
                // Queued behind the caller that switched: this one waited for the database if that one did.
                // (Counting outside the lock instead reads the switch half-done below, next cleared and current
                // not yet moved on, and counts callers that never waited.)
                if (waitedFor == used) {
                    waits.increment();
                }
                return this;
            }
            if (next == null) {
                waits.increment();
                waitedFor = used;
                if (callerFailures != callerFailuresBefore) {
                    // The caller ahead of this one tried the database while this one queued, and failed (a timeout,
                    // the database down): pass its failure on at once rather than queue another attempt, so that
                    // no caller waits longer than one caller's load, however many are queued.
                    throw new SegmentUnavailableException(bizTag, source.table.table(), callerFailure);
                }
                CompletableFuture<Segment> inFlight = loading.get();
                if (inFlight != null) {
                    await(inFlight);
                }
                if (next == null) {
                    loadInCaller(mayCreate);
                }
            }
            Segment loaded = next;
            // Cleared first: a caller that sees the new segment must not see it also as the one waiting.
            next = null;
            current = loaded;
            return this;
        } finally {
            lock.unlock();
        }
    }

    /** Loads into {@link #next} in the caller's thread, or throws with the tag and the cause. */
    private void loadInCaller(boolean mayCreate) {
        if (source.closed()) {
            throw new IllegalStateException("SegmentIdService is closed: no more segments are loaded (bizTag '"
                    + bizTag + "')");
        }
        CompletableFuture<Segment> load = new CompletableFuture<>();
        while (!loading.compareAndSet(null, load)) {
            // A caller that drew the segment's last numbers may have started a background load after this
            // thread looked: share it rather than allocate twice.
            CompletableFuture<Segment> other = loading.get();
            if (other != null) {
                await(other);
            }
            if (next != null) {
                return;
            }
        }
        try {
            Segment segment = load(source.timeSource.currentTimeMillis(), mayCreate);
            next = segment;
            load.complete(segment);
        } catch (UnknownBizTagException e) {
            load.completeExceptionally(e);
            retireIfNeverLoaded();
            throw e;
        } catch (SQLException | RuntimeException e) {
            load.completeExceptionally(e);
            callerFailure = e;
            callerFailures++;
            retireIfNeverLoaded();
            throw new SegmentUnavailableException(bizTag, source.table.table(), e);
        } catch (Error e) {
            load.completeExceptionally(e);
            throw e;
        } finally {
            loading.set(null);
        }
    }

    /**
     * A tag that never loaded is dropped from the service, so that callers passing arbitrary tags (a typo, a
     * public endpoint) do not grow it; callers already waiting on it look the tag up again.
     */
    private void retireIfNeverLoaded() {
        if (loads.sum() == 0) {
            retired = true;
            tags.forget(this);
        }
    }

    private void await(CompletableFuture<Segment> load) {
        try {
            load.get();
        } catch (ExecutionException e) {
            // The caller finds no segment and loads itself, reporting its own failure if the database is still down.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SegmentUnavailableException(bizTag, source.table.table(), e);
        }
    }

    /**
     * Allocates one segment. Only the owner of {@link #loading} calls this. Only a tag's first load on this node
     * may create its row, and only for a caller that may create ({@code mayCreate}) a tag that auto-creation covers.
     */
    private Segment load(long startedAt, boolean mayCreate) throws SQLException {
        SegmentTable table = source.table;
        int nextStep = step == 0 ? 0 : source.nextStep(bizTag, step, tableStep, startedAt - lastLoadAt);
        boolean create = mayCreate && loads.sum() == 0 && source.autoCreates(bizTag);
        try {
            SegmentTable.Allocation allocation = table.allocate(bizTag, nextStep, create, source.firstId(bizTag),
                    source.firstStep(bizTag));
            if (allocation.maxId() > SegmentIdService.MAX_ID_LIMIT) {
                throw new IllegalStateException("max_id of bizTag '" + bizTag + "' in " + table.table()
                        + " is " + allocation.maxId() + ", beyond the largest this allocator hands out (2^62)");
            }
            step = allocation.step();
            tableStep = allocation.tableStep();
            lastLoadAt = startedAt;
            lastFailure = null;
            loads.increment();
            if (loads.sum() == 1) {
                tags.loadedFirst(this, startedAt);
            }
            if (failing) {
                failing = false;
                LOG.log(System.Logger.Level.INFO, "Segments of bizTag ''{0}'' load again from {1}", bizTag, table.table());
            }
            return new Segment(allocation.maxId() - allocation.step(), allocation.maxId(), source.refillThreshold);
        } catch (UnknownBizTagException e) {
            // The caller's mistake (or a flood of made-up tags), not the table's: no warning, no stack trace.
            failedLoads.increment();
            throw e;
        } catch (SQLException | RuntimeException e) {
            failedLoads.increment();
            lastFailure = e.toString();
            if (!failing) {
                failing = true;
                LOG.log(System.Logger.Level.WARNING, "Could not load a segment of bizTag '" + bizTag + "' from "
                        + table.table() + "; numbers in memory are still served", e);
            }
            throw e;
        }
    }
}
