package io.vesta.segment;

import io.vesta.SegmentNumbers;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The tags a service holds buffers for, and what keeps their number bounded: at most {@code maxBufferedTags} loaded
 * (loading one more drops the least recently used), and a buffer unused for {@code idleTimeout} dropped when the
 * service next looks. A dropped buffer's unused numbers are skipped, exactly as at a restart. Idleness costs the hot
 * path nothing: a sweep compares each buffer's cursor with what it saw last time. Tells listeners which tags were
 * loaded and dropped.
 */
final class SegmentTags {

    private static final System.Logger LOG = System.getLogger(SegmentIdService.class.getName());

    private final SegmentSource source;
    private final ConcurrentHashMap<String, SegmentBuffer> buffers = new ConcurrentHashMap<>();
    private final List<Consumer<String>> loadedListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> droppedListeners = new CopyOnWriteArrayList<>();
    private final long idleMillis;
    private final long sweepEveryMillis;
    private final int maxBuffered;
    /** Guards the sweeps and every buffer's {@code seen*} fields. */
    private final ReentrantLock sweepLock = new ReentrantLock();
    private volatile long nextSweepAt = Long.MIN_VALUE;
    private final LongAdder dropped = new LongAdder();

    SegmentTags(SegmentSource source, long idleMillis, int maxBuffered) {
        this.source = source;
        this.idleMillis = idleMillis;
        this.sweepEveryMillis = Math.max(1, Math.min(idleMillis / 2, 60_000));
        this.maxBuffered = maxBuffered;
    }

    /** The tag's buffer, made on first use; only a valid tag is ever put in the map, so a hit needs no check. */
    SegmentBuffer buffer(String bizTag) {
        SegmentBuffer buffer = bizTag == null ? null : buffers.get(bizTag);
        return buffer != null ? buffer : buffers.computeIfAbsent(SegmentNumbers.requireValidBizTag("bizTag", bizTag),
                tag -> new SegmentBuffer(tag, source, this));
    }

    /** The tag's buffer if there is one; never makes one. */
    SegmentBuffer find(String bizTag) {
        return bizTag == null ? null : buffers.get(bizTag);
    }

    /** Every buffer's state, by tag; drops idle buffers first if a sweep is due. */
    List<SegmentView> views() {
        sweepIfDue(source.timeSource.currentTimeMillis());
        return buffers.values().stream().map(SegmentBuffer::view).sorted(Comparator.comparing(SegmentView::bizTag)).toList();
    }

    int size() {
        return buffers.size();
    }

    int maxBuffered() {
        return maxBuffered;
    }

    long dropped() {
        return dropped.sum();
    }

    void addLoadedListener(Consumer<String> listener) {
        loadedListeners.add(listener);
        buffers.values().stream().filter(buffer -> buffer.loads.sum() > 0).forEach(buffer -> announce(listener, buffer.bizTag));
    }

    void addDroppedListener(Consumer<String> listener) {
        droppedListeners.add(listener);
    }

    /** {@code buffer} loaded its tag's first segment: announces the tag, and makes room for it if need be. */
    void loadedFirst(SegmentBuffer buffer, long now) {
        loadedListeners.forEach(listener -> announce(listener, buffer.bizTag));
        if (buffers.size() <= maxBuffered) {
            sweepIfDue(now);
            return;
        }
        sweepLock.lock();
        try {
            sweep(now, buffer);
        } finally {
            sweepLock.unlock();
        }
    }

    /** Forgets a buffer whose tag never loaded (no count: nothing was skipped). */
    void forget(SegmentBuffer buffer) {
        if (buffers.remove(buffer.bizTag, buffer)) {
            droppedListeners.forEach(listener -> announce(listener, buffer.bizTag));
        }
    }

    /** Drops the tag's buffer if there is one: a dated tag's row whose period has ended. */
    void drop(String bizTag) {
        SegmentBuffer buffer = buffers.get(bizTag);
        if (buffer != null) {
            drop(buffer);
        }
    }

    void sweepIfDue(long now) {
        if (now >= nextSweepAt && sweepLock.tryLock()) {
            try {
                sweep(now, null);
            } finally {
                sweepLock.unlock();
            }
        }
    }

    /**
     * Drops buffers idle for {@link #idleMillis}, and, when {@code keep} is set, the least recently used until at
     * most {@link #maxBuffered} tags are loaded ({@code keep}, the one just loaded, last of all). A buffer counts as
     * used when its cursor or segment moved (or a load was in flight) since the last sweep; one sweep is
     * O(buffered tags). Caller holds {@link #sweepLock}.
     */
    private void sweep(long now, SegmentBuffer keep) {
        nextSweepAt = now + sweepEveryMillis;
        int loaded = 0;
        for (SegmentBuffer buffer : buffers.values()) {
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
        while (keep != null && loaded > maxBuffered) {
            SegmentBuffer oldest = null;
            for (SegmentBuffer buffer : buffers.values()) {
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
    private void drop(SegmentBuffer buffer) {
        if (buffers.remove(buffer.bizTag, buffer)) {
            buffer.retired = true;
            dropped.increment();
            droppedListeners.forEach(listener -> announce(listener, buffer.bizTag));
        }
    }

    private static void announce(Consumer<String> listener, String bizTag) {
        try {
            listener.accept(bizTag);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "A tag listener failed on bizTag '" + bizTag + "'", e);
        }
    }
}
