package io.vesta.segment;

import io.vesta.IdService;
import io.vesta.InvalidSettingException;
import io.vesta.SegmentNumbers;
import io.vesta.jdbc.TableScript;
import io.vesta.time.TimeSource;

import javax.sql.DataSource;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import static io.vesta.InvalidSettingException.requireInRange;
import static io.vesta.InvalidSettingException.requireSet;

/**
 * Dense, increasing numbers per business tag, Leaf-segment style: each node takes a segment of numbers from
 * a shared table ({@code UPDATE ... SET max_id = max_id + step}) and hands them out from memory, loading the
 * next segment in the background while the current one still has most of its numbers. Nodes sharing the
 * table never issue the same number; a node's unused numbers are skipped when it stops.
 *
 * <h2>Concurrency</h2>
 * Leaf guards its two buffers with a read-write lock, so every ID pays for a lock acquisition and a switch
 * blocks every reader. Here a segment is immutable apart from one atomic cursor, and the hot
 * path is a single {@code getAndAdd} on the current segment: the value it returns is this caller's alone, and
 * if it lies below the segment's end it is a valid number, whatever other threads do. A caller that draws at
 * or past the end knows the segment is used up (the cursor only grows) and takes the per-tag lock to switch
 * to the next segment; the lock is taken once per segment, not per ID. At most one load per tag is in
 * flight: it is owned by whoever sets {@code loading} from null, which also orders the step bookkeeping from
 * one load to the next.
 *
 * <h2>Dynamic step</h2>
 * As in Leaf, the time between two loads of a tag measures how fast a segment is used. Faster than the
 * target duration doubles the next step (up to {@code maxStep}), slower than twice the target halves it; the
 * table's own step is the floor. A busy tag thus talks to the database about once per target duration and an
 * idle one does not leave large segments unused.
 *
 * <h2>Which tags exist, and what a tag costs</h2>
 * A tag is a row of the table. {@link #nextId} and {@link #nextIds} create a missing row only when the builder says
 * so: {@link Builder#autoCreate(boolean) every tag}, or {@link Builder#autoCreateTags(String) tags matching a
 * pattern}; {@link #nextIdsOfExistingTag} never does (what a server's {@code GET} calls), and {@link #createTag} is the
 * explicit act. Tag names are checked against {@link SegmentNumbers#BIZ_TAG_PATTERN} wherever they enter.
 *
 * <p>A tag in use holds a buffer in memory. At most {@link Builder#maxBufferedTags(int)} are kept: loading a tag
 * beyond that drops the one used least recently, and a buffer unused for {@link Builder#idleTimeout(Duration)} is
 * dropped when the service next looks (a new tag, a segment switch, a listing). A dropped buffer's unused numbers
 * are skipped, exactly as at a restart: numbers are never handed out twice, and the tag's next call loads a new
 * segment. Idleness costs the hot path nothing: a sweep compares each buffer's cursor with what it saw last time.
 *
 * <h2>A database that hangs</h2>
 * Every statement on the table carries the query timeout ({@link Builder#timeout(Duration)}), so a load that meets
 * a locked row or a database that stopped answering fails instead of waiting as long as the driver would; its
 * transaction is rolled back, the row keeps its value. A caller that finds both segments used up waits at most for
 * the load in flight and one load of its own. Callers queued behind it on the same tag are not given a load each in
 * turn: when the load of the caller ahead fails, each gets that failure at once, so the wait does not grow with the
 * number of callers. The next caller after them tries the database again.
 */
public final class SegmentIdService implements SegmentNumbers, AutoCloseable {

    public static final String DEFAULT_TABLE = "vesta_segment";
    /** By default the next segment is loaded once 10% of the current one is used, as Leaf does. */
    public static final double DEFAULT_REFILL_THRESHOLD = 0.1;
    public static final Duration DEFAULT_TARGET_DURATION = Duration.ofMinutes(15);
    public static final int DEFAULT_MAX_STEP = 1_000_000;
    /** The step of a tag created on first use. */
    public static final int DEFAULT_STEP = 1000;
    /** The largest step that may be configured; the table's step column is an INT. */
    public static final int STEP_LIMIT = 1_000_000_000;
    public static final Duration DEFAULT_RETRY_INTERVAL = Duration.ofSeconds(1);
    public static final int DEFAULT_LOADER_THREADS = 2;
    public static final int MAX_BIZ_TAG_LENGTH = SegmentNumbers.MAX_BIZ_TAG_LENGTH;
    /** By default a buffer unused for an hour is dropped. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofHours(1);
    /** By default at most 1,000 tags keep a buffer in memory. */
    public static final int DEFAULT_MAX_BUFFERED_TAGS = 1000;
    /** The largest {@link Builder#maxBufferedTags(int)}. */
    public static final int MAX_BUFFERED_TAGS_LIMIT = 100_000;
    /**
     * By default every statement on the segment table is given 5 s: a one-row UPDATE takes milliseconds on a healthy
     * database, so one still running after seconds waits for a lock or a sick server, and the caller is better off
     * with an error it can act on.
     */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** The shortest {@link Builder#timeout(Duration)}: JDBC counts query timeouts in whole seconds. */
    public static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);
    /** The longest {@link Builder#timeout(Duration)}. */
    public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
    /** The longest {@link #close()} waits for a load in flight. */
    public static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    /**
     * The cursor may run past a segment's end by the numbers racing callers asked for; keeping max_id below
     * 2^62 leaves that overshoot 2^62 of room before a {@code long} could wrap to a number that looks valid.
     */
    static final long MAX_ID_LIMIT = 1L << 62;

    private static final System.Logger LOG = System.getLogger(SegmentIdService.class.getName());
    private static final AtomicInteger SERVICES = new AtomicInteger();

    private final SegmentTable table;
    private final TimeSource timeSource;
    private final double refillThreshold;
    private final long targetMillis;
    private final int maxStep;
    private final long retryIntervalMillis;
    private final ThreadPoolExecutor loader;
    private final ConcurrentHashMap<String, TagBuffer> tags = new ConcurrentHashMap<>();
    private final List<Consumer<String>> tagLoadedListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> tagDroppedListeners = new CopyOnWriteArrayList<>();
    private final boolean autoCreate;
    private final Pattern autoCreateTags;
    private final int defaultStep;
    private final long idleMillis;
    private final long sweepEveryMillis;
    private final int maxBufferedTags;
    /** Guards the sweeps and every buffer's {@code seen*} fields. */
    private final ReentrantLock sweepLock = new ReentrantLock();
    private volatile long nextSweepAt = Long.MIN_VALUE;
    private final LongAdder dropped = new LongAdder();
    private volatile boolean closed;

    private SegmentIdService(Builder builder) {
        this.table = new SegmentTable(builder.dataSource, builder.table, builder.defaultStep,
                (int) builder.timeout.toSeconds(), builder.settingPrefix + "timeout");
        this.autoCreate = builder.autoCreate;
        this.autoCreateTags = builder.autoCreateTags == null || builder.autoCreateTags.isEmpty() ? null
                : Pattern.compile(builder.autoCreateTags);
        this.defaultStep = builder.defaultStep;
        this.idleMillis = builder.idleTimeout.toMillis();
        this.sweepEveryMillis = Math.max(1, Math.min(idleMillis / 2, 60_000));
        this.maxBufferedTags = builder.maxBufferedTags;
        this.timeSource = builder.timeSource;
        this.refillThreshold = builder.refillThreshold;
        this.targetMillis = builder.targetDuration.toMillis();
        this.maxStep = builder.maxStep;
        this.retryIntervalMillis = builder.retryInterval.toMillis();
        String prefix = "vesta-segment-loader-" + SERVICES.incrementAndGet() + "-";
        AtomicInteger threads = new AtomicInteger();
        this.loader = new ThreadPoolExecutor(builder.loaderThreads, builder.loaderThreads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, prefix + threads.incrementAndGet());
                    // A pending refill must never keep an application from exiting.
                    thread.setDaemon(true);
                    return thread;
                });
        this.loader.allowCoreThreadTimeOut(true);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The next number of {@code bizTag}; a missing tag is created if the builder's auto-creation covers it. */
    @Override
    public long nextId(String bizTag) {
        TagBuffer buffer = buffer(bizTag);
        for (;;) {
            Segment segment = buffer.current;
            long value = segment.draw(1);
            if (value < segment.end) {
                if (value >= segment.refillAt) {
                    refillInBackground(buffer, segment);
                }
                return value;
            }
            buffer = advance(buffer, segment, true);
        }
    }

    /**
     * {@code count} numbers of {@code bizTag}, increasing. They are consecutive unless the batch spans two
     * segments; other nodes' numbers may lie in between. A batch that fails part-way (the database is down)
     * throws, and the numbers it had drawn are skipped, never handed out again. A missing tag is created if the
     * builder's auto-creation covers it.
     */
    @Override
    public long[] nextIds(String bizTag, int count) {
        return nextIds(bizTag, count, true);
    }

    /**
     * {@code count} numbers of a tag the table has already, as {@link #nextIds}; never creates the tag, whatever the
     * auto-creation settings say.
     * @throws UnknownBizTagException if the table has no row for the tag
     */
    public long[] nextIdsOfExistingTag(String bizTag, int count) {
        return nextIds(bizTag, count, false);
    }

    /**
     * Creates the tag's row if the table has none: its first number will be {@code start}, its table step
     * {@code step}. An existing row is left as it is, whatever its values; the answer says which happened and what
     * the row holds now.
     * @throws IllegalArgumentException naming a bad argument: a tag not matching {@link SegmentNumbers#BIZ_TAG_PATTERN},
     *         a step outside [1, {@value #STEP_LIMIT}], a start outside [1, 2^62 - step]
     * @throws SegmentUnavailableException if the table cannot be written or read
     */
    public CreatedTag createTag(String bizTag, int step, long start) {
        SegmentNumbers.requireValidBizTag("bizTag", bizTag);
        if (step < 1 || step > STEP_LIMIT) {
            throw new IllegalArgumentException("step must be in [1, " + STEP_LIMIT + "], was " + step);
        }
        if (start < 1 || start > MAX_ID_LIMIT - step) {
            throw new IllegalArgumentException("start must be in [1, 2^62 - step] = [1, " + (MAX_ID_LIMIT - step)
                    + "], was " + start);
        }
        try {
            boolean created = table.create(bizTag, start, step, "created by an operator through Vesta");
            long[] row = table.row(bizTag);
            if (row == null) {
                throw new SQLException("Row of bizTag '" + bizTag + "' in " + table.table() + " vanished after it was created");
            }
            return new CreatedTag(bizTag, created, row[0], (int) row[1]);
        } catch (SQLException | RuntimeException e) {
            throw SegmentUnavailableException.notCreated(bizTag, table.table(), e);
        }
    }

    /** The step of a tag created by {@link #createTag} without one: the builder's default step. */
    public int defaultStep() {
        return defaultStep;
    }

    /**
     * What {@link #createTag} did: {@code created} false when the row was there already. {@code maxId} is the row's
     * max_id now (the next segment starts there), {@code step} its table step.
     */
    public record CreatedTag(String bizTag, boolean created, long maxId, int step) {
    }

    private long[] nextIds(String bizTag, int count, boolean mayCreate) {
        if (count < 1 || count > IdService.MAX_BATCH) {
            throw new IllegalArgumentException("count must be in [1, " + IdService.MAX_BATCH + "], was " + count);
        }
        TagBuffer buffer = buffer(bizTag);
        long[] ids = new long[count];
        int filled = 0;
        for (;;) {
            Segment segment = buffer.current;
            int wanted = count - filled;
            long first = segment.draw(wanted);
            if (first < segment.end) {
                // A draw that crosses the end takes the tail; the cursor is past the end for everyone after.
                long end = Math.min(first + wanted, segment.end);
                for (long value = first; value < end; value++) {
                    ids[filled++] = value;
                }
                if (end > segment.refillAt) {
                    refillInBackground(buffer, segment);
                }
                if (filled == count) {
                    return ids;
                }
            }
            buffer = advance(buffer, segment, mayCreate);
        }
    }

    /** The state of one tag's buffers, if this service holds them (it has served the tag, and not dropped it since). */
    public Optional<SegmentView> segment(String bizTag) {
        TagBuffer buffer = bizTag == null ? null : tags.get(bizTag);
        return buffer == null ? Optional.empty() : Optional.of(buffer.view());
    }

    /**
     * The state of every tag whose buffers this service holds, by tag: at most {@link Builder#maxBufferedTags(int)}
     * (and those loading their first segment). Drops idle buffers first if a sweep is due.
     */
    public List<SegmentView> segments() {
        sweepIfDue(timeSource.currentTimeMillis());
        return tags.values().stream().map(TagBuffer::view).sorted(Comparator.comparing(SegmentView::bizTag)).toList();
    }

    /** How many tags hold buffers now, at most {@link Builder#maxBufferedTags(int)} of them loaded. */
    public int bufferedTags() {
        return tags.size();
    }

    /** The most tags that keep buffers in memory. */
    public int maxBufferedTags() {
        return maxBufferedTags;
    }

    /** Buffers dropped so far, idle or least recently used: each skipped the rest of its segments. */
    public long droppedBuffers() {
        return dropped.sum();
    }

    public String table() {
        return table.table();
    }

    /** The query timeout of every statement on the segment table. */
    public Duration timeout() {
        return table.timeout();
    }

    /**
     * Calls {@code listener} with each tag's name once its first segment is loaded, and at once with every tag
     * already loaded: how meters learn the tags, which appear on first use. A tag whose first load fails (an
     * unknown tag, a typo) is never announced. A tag loading while the listener is added may be announced
     * twice. The listener runs in the thread that loaded the segment and must be quick; what it throws is
     * logged, never passed on to the caller of {@link #nextId}.
     */
    public void addTagLoadedListener(Consumer<String> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must be set");
        }
        tagLoadedListeners.add(listener);
        tags.values().stream().filter(buffer -> buffer.loads.sum() > 0).forEach(buffer -> announce(listener, buffer.bizTag));
    }

    /**
     * Calls {@code listener} with a tag's name when its buffers are dropped (idle, least recently used, or a tag
     * whose first load failed): how meters learn to forget a tag. The tag may be loaded again at once, so a listener
     * that removes something should check {@link #segment(String)} first. Same rules as
     * {@link #addTagLoadedListener}.
     */
    public void addTagDroppedListener(Consumer<String> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must be set");
        }
        tagDroppedListeners.add(listener);
    }

    /**
     * Stops loading segments. Numbers already in the buffers are still handed out; after them, calls fail.
     * The numbers left unused are skipped for good, as with any segment allocator. Waits up to
     * {@link #CLOSE_WAIT} for a load in flight, so that it does not outlive the DataSource, which an
     * application usually closes next.
     */
    @Override
    public void close() {
        closed = true;
        loader.shutdown();
        try {
            loader.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "SegmentIdService[table " + table.table() + ", " + tags.size() + " tags, maxStep " + maxStep
                + ", target " + Duration.ofMillis(targetMillis) + "]";
    }

    /** The tag's buffer; only a valid tag is ever put in the map, so a hit needs no check. */
    private TagBuffer buffer(String bizTag) {
        TagBuffer buffer = bizTag == null ? null : tags.get(bizTag);
        return buffer != null ? buffer
                : tags.computeIfAbsent(SegmentNumbers.requireValidBizTag("bizTag", bizTag), TagBuffer::new);
    }

    /** Whether a tag the table does not have is created by its first {@link #nextId}. */
    private boolean autoCreates(String bizTag) {
        return autoCreate || autoCreateTags != null && autoCreateTags.matcher(bizTag).matches();
    }

    private void sweepIfDue(long now) {
        if (now >= nextSweepAt && sweepLock.tryLock()) {
            try {
                sweep(now, null);
            } finally {
                sweepLock.unlock();
            }
        }
    }

    /**
     * A tag loaded its first segment: sweeps if due, and drops the least recently used buffers while more than
     * {@link #maxBufferedTags} tags are loaded ({@code keep}, the one just loaded, last of all).
     */
    private void admit(TagBuffer keep, long now) {
        if (tags.size() <= maxBufferedTags) {
            sweepIfDue(now);
            return;
        }
        sweepLock.lock();
        try {
            sweep(now, keep);
        } finally {
            sweepLock.unlock();
        }
    }

    /**
     * Drops buffers idle for {@link #idleMillis}, and, when {@code keep} is set, the least recently used until at
     * most {@link #maxBufferedTags} tags are loaded. A buffer counts as used when its cursor or segment moved (or a
     * load was in flight) since the last sweep; one sweep is O(buffered tags). Caller holds {@link #sweepLock}.
     */
    private void sweep(long now, TagBuffer keep) {
        nextSweepAt = now + sweepEveryMillis;
        int loaded = 0;
        for (TagBuffer buffer : tags.values()) {
            Segment segment = buffer.current;
            long cursor = segment.cursor;
            if (segment != buffer.seenSegment || cursor != buffer.seenCursor || buffer.loading.get() != null) {
                buffer.seenSegment = segment;
                buffer.seenCursor = cursor;
                buffer.seenSince = now;
            }
            if (buffer.loads.sum() == 0) {
                continue;
            }
            if (now - buffer.seenSince >= idleMillis && buffer != keep) {
                drop(buffer);
            } else {
                loaded++;
            }
        }
        while (keep != null && loaded > maxBufferedTags) {
            TagBuffer oldest = null;
            for (TagBuffer buffer : tags.values()) {
                if (buffer != keep && buffer.loads.sum() > 0 && (oldest == null || buffer.seenSince < oldest.seenSince)) {
                    oldest = buffer;
                }
            }
            if (oldest == null) {
                return;
            }
            drop(oldest);
            loaded--;
        }
    }

    /**
     * Forgets the buffer: its unused numbers are skipped (as at a restart), the tag's next caller loads a new
     * segment. A caller still holding it draws from segments this node was given, so nothing can repeat; one that
     * must load finds it retired and looks the tag up again.
     */
    private void drop(TagBuffer buffer) {
        if (tags.remove(buffer.bizTag, buffer)) {
            buffer.retired = true;
            dropped.increment();
            tagDroppedListeners.forEach(listener -> announce(listener, buffer.bizTag));
        }
    }

    /**
     * Starts loading the next segment once a caller has drawn past the threshold. Checked on every draw past
     * it rather than once, so that a failed load is retried (after the retry interval) while numbers last.
     */
    private void refillInBackground(TagBuffer buffer, Segment segment) {
        if (buffer.next != null || buffer.loading.get() != null || buffer.current != segment) {
            return;
        }
        long now = timeSource.currentTimeMillis();
        if (now < buffer.retryNotBefore) {
            return;
        }
        CompletableFuture<Segment> load = new CompletableFuture<>();
        if (!buffer.loading.compareAndSet(null, load)) {
            return;
        }
        try {
            loader.execute(() -> loadInBackground(buffer, load, now));
        } catch (RejectedExecutionException closedNow) {
            buffer.loading.set(null);
            load.completeExceptionally(closedNow);
        }
    }

    private void loadInBackground(TagBuffer buffer, CompletableFuture<Segment> load, long requestedAt) {
        Segment segment = null;
        Throwable failure = null;
        try {
            segment = load(buffer, requestedAt, false);
            // Published before loading is cleared, so a hot-path caller never sees neither and starts a second load.
            buffer.next = segment;
        } catch (Throwable e) {
            failure = e;
            buffer.retryNotBefore = timeSource.currentTimeMillis() + retryIntervalMillis;
        } finally {
            buffer.loading.set(null);
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
    private TagBuffer advance(TagBuffer buffer, Segment used, boolean mayCreate) {
        sweepIfDue(timeSource.currentTimeMillis());
        long callerFailuresBefore = buffer.callerFailures;
        buffer.lock.lock();
        try {
            if (buffer.retired) {
                if (buffer.callerFailures != callerFailuresBefore) {
                    // The tag's first load failed while this caller queued: its failure, as below.
                    throw new SegmentUnavailableException(buffer.bizTag, table.table(), buffer.callerFailure);
                }
                return buffer(buffer.bizTag);
            }
            if (buffer.current != used) {
                // Queued behind the caller that switched: this one waited for the database if that one did.
                // (Counting outside the lock instead reads the switch half-done below, next cleared and current
                // not yet moved on, and counts callers that never waited.)
                if (buffer.waitedFor == used) {
                    buffer.waits.increment();
                }
                return buffer;
            }
            if (buffer.next == null) {
                buffer.waits.increment();
                buffer.waitedFor = used;
                if (buffer.callerFailures != callerFailuresBefore) {
                    // The caller ahead of this one tried the database while this one queued, and failed (a timeout,
                    // the database down): pass its failure on at once rather than queue another attempt, so that
                    // no caller waits longer than one caller's load, however many are queued.
                    throw new SegmentUnavailableException(buffer.bizTag, table.table(), buffer.callerFailure);
                }
                CompletableFuture<Segment> inFlight = buffer.loading.get();
                if (inFlight != null) {
                    await(buffer, inFlight);
                }
                if (buffer.next == null) {
                    loadInCaller(buffer, mayCreate);
                }
            }
            Segment next = buffer.next;
            // Cleared first: a caller that sees the new segment must not see it also as the one waiting.
            buffer.next = null;
            buffer.current = next;
            return buffer;
        } finally {
            buffer.lock.unlock();
        }
    }

    /** Loads into {@code buffer.next} in the caller's thread, or throws with the tag and the cause. */
    private void loadInCaller(TagBuffer buffer, boolean mayCreate) {
        if (closed) {
            throw new IllegalStateException("SegmentIdService is closed: no more segments are loaded (bizTag '"
                    + buffer.bizTag + "')");
        }
        CompletableFuture<Segment> load = new CompletableFuture<>();
        while (!buffer.loading.compareAndSet(null, load)) {
            // A caller that drew the segment's last numbers may have started a background load after this
            // thread looked: share it rather than allocate twice.
            CompletableFuture<Segment> other = buffer.loading.get();
            if (other != null) {
                await(buffer, other);
            }
            if (buffer.next != null) {
                return;
            }
        }
        try {
            Segment segment = load(buffer, timeSource.currentTimeMillis(), mayCreate);
            buffer.next = segment;
            load.complete(segment);
        } catch (UnknownBizTagException e) {
            load.completeExceptionally(e);
            retireIfNeverLoaded(buffer);
            throw e;
        } catch (SQLException | RuntimeException e) {
            load.completeExceptionally(e);
            buffer.callerFailure = e;
            buffer.callerFailures++;
            retireIfNeverLoaded(buffer);
            throw new SegmentUnavailableException(buffer.bizTag, table.table(), e);
        } catch (Error e) {
            load.completeExceptionally(e);
            throw e;
        } finally {
            buffer.loading.set(null);
        }
    }

    /**
     * A tag that never loaded is dropped from the map, so that callers passing arbitrary tags (a typo, a
     * public endpoint) do not grow it; callers already waiting on it look the tag up again.
     */
    private void retireIfNeverLoaded(TagBuffer buffer) {
        if (buffer.loads.sum() == 0) {
            buffer.retired = true;
            if (tags.remove(buffer.bizTag, buffer)) {
                tagDroppedListeners.forEach(listener -> announce(listener, buffer.bizTag));
            }
        }
    }

    private void await(TagBuffer buffer, CompletableFuture<Segment> load) {
        try {
            load.get();
        } catch (ExecutionException e) {
            // The caller finds no segment and loads itself, reporting its own failure if the database is still down.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SegmentUnavailableException(buffer.bizTag, table.table(), e);
        }
    }

    /**
     * Allocates one segment. Only the owner of {@code buffer.loading} calls this. Only a tag's first load on this
     * node may create its row, and only for a caller that may create ({@code mayCreate}) a tag that auto-creation
     * covers.
     */
    private Segment load(TagBuffer buffer, long startedAt, boolean mayCreate) throws SQLException {
        int step = buffer.step == 0 ? 0
                : nextStep(buffer.step, buffer.tableStep, maxStep, startedAt - buffer.lastLoadAt, targetMillis);
        boolean create = mayCreate && buffer.loads.sum() == 0 && autoCreates(buffer.bizTag);
        try {
            SegmentTable.Allocation allocation = table.allocate(buffer.bizTag, step, create);
            if (allocation.maxId() > MAX_ID_LIMIT) {
                throw new IllegalStateException("max_id of bizTag '" + buffer.bizTag + "' in " + table.table()
                        + " is " + allocation.maxId() + ", beyond the largest this allocator hands out (2^62)");
            }
            buffer.step = allocation.step();
            buffer.tableStep = allocation.tableStep();
            buffer.lastLoadAt = startedAt;
            buffer.lastFailure = null;
            buffer.loads.increment();
            if (buffer.loads.sum() == 1) {
                tagLoadedListeners.forEach(listener -> announce(listener, buffer.bizTag));
                admit(buffer, startedAt);
            }
            if (buffer.failing) {
                buffer.failing = false;
                LOG.log(System.Logger.Level.INFO, "Segments of bizTag ''{0}'' load again from {1}", buffer.bizTag, table.table());
            }
            return new Segment(allocation.maxId() - allocation.step(), allocation.maxId(), refillThreshold);
        } catch (UnknownBizTagException e) {
            // The caller's mistake (or a flood of made-up tags), not the table's: no warning, no stack trace.
            buffer.failedLoads.increment();
            throw e;
        } catch (SQLException | RuntimeException e) {
            buffer.failedLoads.increment();
            buffer.lastFailure = e.toString();
            if (!buffer.failing) {
                buffer.failing = true;
                LOG.log(System.Logger.Level.WARNING, "Could not load a segment of bizTag '" + buffer.bizTag + "' from "
                        + table.table() + "; numbers in memory are still served", e);
            }
            throw e;
        }
    }

    private static void announce(Consumer<String> listener, String bizTag) {
        try {
            listener.accept(bizTag);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "A tag listener failed on bizTag '" + bizTag + "'", e);
        }
    }

    /**
     * The step of the next load, from how long the previous segment lasted (the time between two loads).
     * The table's step is the floor, even above {@code maxStep}: the table is the operator's word.
     */
    static int nextStep(int step, int tableStep, int maxStep, long elapsedMillis, long targetMillis) {
        long next;
        if (elapsedMillis < targetMillis) {
            next = Math.min(2L * step, maxStep);
        } else if (elapsedMillis >= 2 * targetMillis) {
            next = step / 2;
        } else {
            next = step;
        }
        return (int) Math.max(next, tableStep);
    }

    /** Numbers in [start, end); {@code cursor} is the next one to hand out and may run past the end. */
    private static final class Segment {

        private static final VarHandle CURSOR;

        static {
            try {
                CURSOR = MethodHandles.lookup().findVarHandle(Segment.class, "cursor", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final long start;
        final long end;
        final long refillAt;
        /**
         * In the segment itself rather than in an AtomicLong beside it: the hot path then reads one object, not
         * two (CosId's segment does the same).
         */
        volatile long cursor;

        Segment(long start, long end, double refillThreshold) {
            this.start = start;
            this.end = end;
            this.refillAt = start + (long) ((end - start) * refillThreshold);
            this.cursor = start;
        }

        /** Takes {@code count} numbers: returns the first, which is this caller's alone. */
        long draw(long count) {
            return (long) CURSOR.getAndAdd(this, count);
        }
    }

    private final class TagBuffer {

        final String bizTag;
        final ReentrantLock lock = new ReentrantLock();
        /** Starts used up, so the first caller takes the slow path and loads. */
        volatile Segment current = new Segment(0, 0, 0);
        volatile Segment next;
        final AtomicReference<CompletableFuture<Segment>> loading = new AtomicReference<>();
        volatile boolean retired;
        volatile long retryNotBefore = Long.MIN_VALUE;
        /**
         * How many loads in a caller's thread failed, and the last one's failure; written under {@link #lock}, read
         * before it by a caller about to queue, so that it can tell a failure that came while it queued.
         */
        volatile long callerFailures;
        volatile Throwable callerFailure;

        // Written only by the owner of `loading`; volatile for the monitoring view.
        volatile int step;
        volatile int tableStep;
        volatile long lastLoadAt = Long.MIN_VALUE;
        volatile String lastFailure;
        volatile boolean failing;
        /** The last segment whose successor was not ready when it ran out; guarded by {@code lock}. */
        Segment waitedFor;
        // What the last sweep saw, and since when; guarded by sweepLock.
        Segment seenSegment;
        long seenCursor;
        long seenSince = timeSource.currentTimeMillis();

        final LongAdder loads = new LongAdder();
        final LongAdder failedLoads = new LongAdder();
        final LongAdder waits = new LongAdder();

        TagBuffer(String bizTag) {
            this.bizTag = bizTag;
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
    }

    /** Settings of a {@link SegmentIdService}; every setting is checked in {@link #build()}. */
    public static final class Builder {

        private DataSource dataSource;
        private String table = DEFAULT_TABLE;
        private double refillThreshold = DEFAULT_REFILL_THRESHOLD;
        private Duration targetDuration = DEFAULT_TARGET_DURATION;
        private int maxStep = DEFAULT_MAX_STEP;
        private boolean autoCreate;
        private String autoCreateTags;
        private int defaultStep = DEFAULT_STEP;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private int maxBufferedTags = DEFAULT_MAX_BUFFERED_TAGS;
        private Duration retryInterval = DEFAULT_RETRY_INTERVAL;
        private int loaderThreads = DEFAULT_LOADER_THREADS;
        private Duration timeout = DEFAULT_TIMEOUT;
        private TimeSource timeSource = TimeSource.system();
        private String settingPrefix = "";

        private Builder() {
        }

        /** Where the segment table lives; required. A pooled DataSource: every load borrows a connection. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = dataSource;
            return this;
        }

        /** The segment table, an unquoted SQL identifier, optionally schema.table; {@value #DEFAULT_TABLE} by default. */
        public Builder table(String table) {
            this.table = table;
            return this;
        }

        /** The share of a segment used before the next is loaded in the background, in [0, 1); 0.1 by default. */
        public Builder refillThreshold(double refillThreshold) {
            this.refillThreshold = refillThreshold;
            return this;
        }

        /** How long a segment should last: faster doubles the step, slower than twice this halves it; 15 min by default. */
        public Builder targetDuration(Duration targetDuration) {
            this.targetDuration = targetDuration;
            return this;
        }

        /** The largest step doubling reaches, in [1, 1000000000]; 1,000,000 by default. */
        public Builder maxStep(int maxStep) {
            this.maxStep = maxStep;
            return this;
        }

        /**
         * Whether every tag with no row is created on first use by {@link #nextId} and {@link #nextIds} (with
         * {@link #defaultStep(int)}); off by default. Meant for an application whose tags come from its own code; in
         * front of a network, prefer {@link #autoCreateTags(String)} or {@link SegmentIdService#createTag}.
         */
        public Builder autoCreate(boolean autoCreate) {
            this.autoCreate = autoCreate;
            return this;
        }

        /**
         * A regular expression: tags with no row that match it, whole, are created on first use by {@link #nextId}
         * and {@link #nextIds} (with {@link #defaultStep(int)}); none by default. Cannot be combined with
         * {@link #autoCreate(boolean) autoCreate(true)}, which covers every tag.
         */
        public Builder autoCreateTags(String autoCreateTags) {
            this.autoCreateTags = autoCreateTags;
            return this;
        }

        /**
         * How long a tag's buffer may stay unused before it is dropped (its unused numbers skipped, as at a restart),
         * in [1 s, 365 d]; 1 h by default.
         */
        public Builder idleTimeout(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
            return this;
        }

        /**
         * The most tags that keep buffers in memory, in [1, 100000]; 1,000 by default. Loading one more drops the
         * least recently used (its unused numbers skipped).
         */
        public Builder maxBufferedTags(int maxBufferedTags) {
            this.maxBufferedTags = maxBufferedTags;
            return this;
        }

        /** The step of tags created on first use, in [1, 1000000000]; 1000 by default. */
        public Builder defaultStep(int defaultStep) {
            this.defaultStep = defaultStep;
            return this;
        }

        /** How long after a failed background load the next background attempt waits, in [0, 60 s]; 1 s by default. */
        public Builder retryInterval(Duration retryInterval) {
            this.retryInterval = retryInterval;
            return this;
        }

        /** Threads that load segments in the background, in [1, 64]; 2 by default. Idle threads exit. */
        public Builder loaderThreads(int loaderThreads) {
            this.loaderThreads = loaderThreads;
            return this;
        }

        /**
         * The query timeout of every statement on the segment table, a whole number of seconds in [1 s, 10 min];
         * 5 s by default. A statement still running then (the row locked by another transaction, a database that
         * hangs) is cancelled and its transaction rolled back: a caller waiting for a segment gets a
         * {@link SegmentUnavailableException} instead of waiting as long as the driver would.
         */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = timeSource;
            return this;
        }

        /**
         * The prefix of every setting's name in errors, such as {@code "vesta.segment."}; none by default. Each
         * setting is named by its kebab-case name under it ({@code vesta.segment.max-step}).
         */
        public Builder settingPrefix(String settingPrefix) {
            this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
            return this;
        }

        /**
         * Checks every setting and returns the service. Nothing touches the database until the first number.
         * @throws InvalidSettingException naming the first bad setting under {@link #settingPrefix(String)}
         */
        public SegmentIdService build() {
            requireSet(settingPrefix + "data-source", dataSource, "a DataSource holding the segment table");
            requireSet(settingPrefix + "time-source", timeSource, "a TimeSource, such as TimeSource.system()");
            TableScript.checkTableName(settingPrefix + "table", table);
            if (!(refillThreshold >= 0.0 && refillThreshold < 1.0)) {
                throw new InvalidSettingException(settingPrefix + "refill-threshold", refillThreshold,
                        "a share of the segment at least 0.0 and below 1.0, such as 0.1");
            }
            requireInRange(settingPrefix + "target-duration", targetDuration, Duration.ofMillis(1), Duration.ofDays(1));
            requireInRange(settingPrefix + "max-step", maxStep, 1, STEP_LIMIT);
            requireInRange(settingPrefix + "default-step", defaultStep, 1, STEP_LIMIT);
            requireInRange(settingPrefix + "retry-interval", retryInterval, Duration.ZERO, Duration.ofMinutes(1));
            requireInRange(settingPrefix + "loader-threads", loaderThreads, 1, 64);
            checkTimeout(settingPrefix + "timeout", timeout);
            requireInRange(settingPrefix + "idle-timeout", idleTimeout, Duration.ofSeconds(1), Duration.ofDays(365));
            requireInRange(settingPrefix + "max-buffered-tags", maxBufferedTags, 1, MAX_BUFFERED_TAGS_LIMIT);
            if (autoCreateTags != null && !autoCreateTags.isEmpty()) {
                if (autoCreate) {
                    throw new InvalidSettingException(settingPrefix + "auto-create-tags", autoCreateTags,
                            "unset while " + settingPrefix + "auto-create is true, which creates every tag",
                            "contradicts " + settingPrefix + "auto-create=true");
                }
                try {
                    Pattern.compile(autoCreateTags);
                } catch (PatternSyntaxException e) {
                    throw new InvalidSettingException(settingPrefix + "auto-create-tags", autoCreateTags,
                            "a Java regular expression matched against the whole tag, such as orders|invoices|tenant-[0-9]+",
                            "is not a regular expression: " + e.getDescription());
                }
            }
            return new SegmentIdService(this);
        }

        private static void checkTimeout(String setting, Duration timeout) {
            String allowed = "a whole number of seconds in [" + MIN_TIMEOUT.toSeconds() + "s, " + MAX_TIMEOUT.toSeconds()
                    + "s], such as 5s";
            if (timeout == null) {
                throw new InvalidSettingException(setting, null, allowed);
            }
            if (timeout.compareTo(MIN_TIMEOUT) < 0 || timeout.compareTo(MAX_TIMEOUT) > 0) {
                throw new InvalidSettingException(setting, timeout.toMillis() + "ms", allowed);
            }
            if (timeout.toNanos() % 1_000_000_000L != 0) {
                // JDBC counts query timeouts in whole seconds: rounding would silently change what was asked for.
                throw new InvalidSettingException(setting, timeout.toMillis() + "ms", allowed,
                        "is not a whole number of seconds (JDBC counts query timeouts in seconds)");
            }
        }
    }
}
