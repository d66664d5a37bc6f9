package io.vesta.segment;

import io.vesta.IdService;
import io.vesta.SegmentNumbers;

import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

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
 * to the next segment ({@link SegmentBuffer#advance}); the lock is taken once per segment, not per ID. At most one load per tag is in
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
 * so: {@link SegmentIdServiceBuilder#autoCreate(boolean) every tag}, or
 * {@link SegmentIdServiceBuilder#autoCreateTags(String) tags matching a pattern}; {@link #nextIdsOfExistingTag}
 * never does (what a server's {@code GET} calls), and {@link #createTag} is the explicit act. Tag names are checked against {@link SegmentNumbers#BIZ_TAG_PATTERN} wherever they enter.
 *
 * <p>A tag in use holds a buffer in memory ({@link SegmentTags}). At most
 * {@link SegmentIdServiceBuilder#maxBufferedTags(int)} are kept: loading a tag beyond that drops the one used least
 * recently, and a buffer unused for {@link SegmentIdServiceBuilder#idleTimeout(Duration)} is dropped when the service
 * next looks (a new tag, a segment switch, a listing). A dropped buffer's unused numbers
 * are skipped, exactly as at a restart: numbers are never handed out twice, and the tag's next call loads a new
 * segment. Idleness costs the hot path nothing: a sweep compares each buffer's cursor with what it saw last time.
 *
 * <h2>Dated tags</h2>
 * A tag configured with {@link SegmentIdServiceBuilder#datedTag} numbers as the date of the call (in its zone) and a
 * zero-padded counter that starts again each day or month ({@link DatedTag}). The counter is a row per period
 * ({@code orders:20261204}), created with max_id {@code start} by the period's first call on any node and drawn like
 * any tag; when the clock passes the period's end the old row's buffers are dropped, so a service holds one row per
 * dated tag. A counter past its width throws {@link DatedNumberOverflowException}, never a wrapped number.
 *
 * <h2>A database that hangs</h2>
 * Every statement on the table carries the query timeout ({@link SegmentIdServiceBuilder#timeout(Duration)}), so a
 * load that meets a locked row or a database that stopped answering fails instead of waiting as long as the driver would; its
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
    /** The largest {@link SegmentIdServiceBuilder#maxBufferedTags(int)}. */
    public static final int MAX_BUFFERED_TAGS_LIMIT = 100_000;
    /**
     * By default every statement on the segment table is given 5 s: a one-row UPDATE takes milliseconds on a healthy
     * database, so one still running after seconds waits for a lock or a sick server, and the caller is better off
     * with an error it can act on.
     */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** The shortest {@link SegmentIdServiceBuilder#timeout(Duration)}: JDBC counts query timeouts in whole seconds. */
    public static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);
    /** The longest {@link SegmentIdServiceBuilder#timeout(Duration)}. */
    public static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
    /** The longest {@link #close()} waits for a load in flight. */
    public static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    /**
     * The cursor may run past a segment's end by the numbers racing callers asked for; keeping max_id below
     * 2^62 leaves that overshoot 2^62 of room before a {@code long} could wrap to a number that looks valid.
     */
    static final long MAX_ID_LIMIT = 1L << 62;

    private final SegmentSource source;
    private final SegmentTags tags;
    private final int defaultStep;
    private final DatedTags dated;
    /** Drops the buffers of a dated tag's ended period; made once, so that a dated call allocates nothing for it. */
    private final Consumer<String> dropEndedPeriod;

    SegmentIdService(SegmentIdServiceBuilder settings) {
        this.source = new SegmentSource(settings);
        this.tags = new SegmentTags(source, settings.idleTimeout.toMillis(), settings.maxBufferedTags);
        this.defaultStep = settings.defaultStep;
        this.dated = source.datedTags.isEmpty() ? null : source.datedTags;
        this.dropEndedPeriod = tags::drop;
    }

    /** The settings of a new service, each checked when it is built. */
    public static SegmentIdServiceBuilder builder() {
        return new SegmentIdServiceBuilder();
    }

    /**
     * The next number of {@code bizTag}; a missing tag is created if the builder's auto-creation covers it. For a
     * {@link SegmentIdServiceBuilder#datedTag dated tag}, the date of this call and the period's next counter (the
     * period's row is created on its first call).
     * @throws DatedNumberOverflowException when a dated tag's counter has passed its width in this period
     */
    @Override
    public long nextId(String bizTag) {
        if (dated != null) {
            DatedTags.Counter counter = dated.route(bizTag);
            if (counter != null) {
                DatedTag.PeriodAt period = periodOf(counter);
                return counter.number(period, next(period.rowTag()));
            }
        }
        return next(bizTag);
    }

    private long next(String bizTag) {
        SegmentBuffer buffer = tags.buffer(bizTag);
        for (;;) {
            Segment segment = buffer.current;
            long value = segment.draw(1);
            if (value < segment.end) {
                if (value >= segment.refillAt) {
                    buffer.refill(segment);
                }
                return value;
            }
            buffer = buffer.advance(segment, true);
        }
    }

    /**
     * {@code count} numbers of {@code bizTag}, increasing. They are consecutive unless the batch spans two
     * segments; other nodes' numbers may lie in between. A batch that fails part-way (the database is down)
     * throws, and the numbers it had drawn are skipped, never handed out again. A missing tag is created if the
     * builder's auto-creation covers it. A dated tag's batch is all of one period, the one of the moment of the call,
     * even if the batch is drawn after the period ends.
     * @throws DatedNumberOverflowException when a dated tag's counter passes its width in this batch (the batch's
     *         numbers are skipped)
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
            boolean created = source.table.create(bizTag, start, step, "created by an operator through Vesta");
            long[] row = source.table.row(bizTag);
            if (row == null) {
                throw new SQLException("Row of bizTag '" + bizTag + "' in " + source.table.table()
                        + " vanished after it was created");
            }
            return new CreatedTag(bizTag, created, row[0], (int) row[1]);
        } catch (SQLException | RuntimeException e) {
            throw SegmentUnavailableException.notCreated(bizTag, source.table.table(), e);
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
        if (dated != null) {
            DatedTags.Counter counter = dated.route(bizTag);
            if (counter != null) {
                DatedTag.PeriodAt period = periodOf(counter);
                long[] ids = draw(period.rowTag(), count, mayCreate);
                // Increasing: if the last fits the width, all do.
                counter.number(period, ids[count - 1]);
                for (int i = 0; i < count; i++) {
                    ids[i] += period.prefix();
                }
                return ids;
            }
        }
        return draw(bizTag, count, mayCreate);
    }

    private DatedTag.PeriodAt periodOf(DatedTags.Counter counter) {
        return counter.periodAt(source.timeSource.currentTimeMillis(), dropEndedPeriod);
    }

    private long[] draw(String bizTag, int count, boolean mayCreate) {
        SegmentBuffer buffer = tags.buffer(bizTag);
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
                    buffer.refill(segment);
                }
                if (filled == count) {
                    return ids;
                }
            }
            buffer = buffer.advance(segment, mayCreate);
        }
    }

    /** The dated tags, by tag. */
    public List<DatedTag> datedTags() {
        return source.datedTags.all();
    }

    /** The state of one tag's buffers, if this service holds them (it has served the tag, and not dropped it since). */
    public Optional<SegmentView> segment(String bizTag) {
        SegmentBuffer buffer = tags.find(bizTag);
        return buffer == null ? Optional.empty() : Optional.of(buffer.view());
    }

    /**
     * The state of every tag whose buffers this service holds, by tag: at most {@link SegmentIdServiceBuilder#maxBufferedTags(int)}
     * (and those loading their first segment). Drops idle buffers first if a sweep is due.
     */
    public List<SegmentView> segments() {
        return tags.views();
    }

    /** How many tags hold buffers now, at most {@link SegmentIdServiceBuilder#maxBufferedTags(int)} of them loaded. */
    public int bufferedTags() {
        return tags.size();
    }

    /** The most tags that keep buffers in memory. */
    public int maxBufferedTags() {
        return tags.maxBuffered();
    }

    /** Buffers dropped so far, idle, least recently used or of a dated tag's ended period: each skipped the rest of its segments. */
    public long droppedBuffers() {
        return tags.dropped();
    }

    public String table() {
        return source.table.table();
    }

    /** The query timeout of every statement on the segment table. */
    public Duration timeout() {
        return source.table.timeout();
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
        tags.addLoadedListener(listener);
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
        tags.addDroppedListener(listener);
    }

    /**
     * Stops loading segments. Numbers already in the buffers are still handed out; after them, calls fail.
     * The numbers left unused are skipped for good, as with any segment allocator. Waits up to
     * {@link #CLOSE_WAIT} for a load in flight, so that it does not outlive the DataSource, which an
     * application usually closes next.
     */
    @Override
    public void close() {
        source.close(CLOSE_WAIT);
    }

    @Override
    public String toString() {
        return "SegmentIdService[table " + source.table.table() + ", " + tags.size() + " tags, maxStep "
                + source.maxStep + ", target " + Duration.ofMillis(source.targetMillis) + "]";
    }
}
