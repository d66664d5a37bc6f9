package io.vesta.client;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * IDs of one server's one reservation in a {@link PrefetchBuffer}, handed out by index: callers take IDs by an
 * atomic counter, without the buffer's lock, after the buffer has checked by its ticker that the batch is not too old.
 */
final class PrefetchedBatch {

    static final PrefetchedBatch EMPTY = new PrefetchedBatch(new long[0], 0, 0, 0, 0);

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

    PrefetchedBatch(long[] ids, double refillThreshold, long sentNanos, long issuedNanos, long maxAgeNanos) {
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
