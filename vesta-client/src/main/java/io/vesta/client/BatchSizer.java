package io.vesta.client;

import java.time.Duration;

/**
 * How many IDs the next batch asks for, adapted to use the way Leaf adapts its segment step: a batch used up sooner
 * than the target lifetime, or before the next one arrived, doubles the next request, up to the maximum; a batch
 * that lasted more than twice the target halves it, down to the minimum. So a busy client asks for large batches and
 * keeps its server's generator busy, and a quiet one keeps few IDs in memory (and loses few when it stops).
 * Not thread-safe: the buffer calls it under its lock.
 */
final class BatchSizer {

    private final int min;
    private final int max;
    private final long targetNanos;
    private int size;

    /**
     * @param min the first request, and the smallest
     * @param max the largest request
     * @param target how long a batch should last
     */
    BatchSizer(int min, int max, Duration target) {
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("need 1 <= min <= max, was min " + min + ", max " + max);
        }
        this.min = min;
        this.max = max;
        this.targetNanos = target.toNanos();
        this.size = min;
    }

    /** The size of the next request. */
    int size() {
        return size;
    }

    /**
     * A batch was used up {@code lifetimeNanos} after it became the one in use.
     * @param starved whether a caller found it used up before the next batch had arrived
     */
    void usedUp(long lifetimeNanos, boolean starved) {
        if (starved || lifetimeNanos < targetNanos) {
            size = (int) Math.min(max, 2L * size);
        } else if (lifetimeNanos > 2 * targetNanos) {
            size = Math.max(min, size / 2);
        }
    }

    int min() {
        return min;
    }

    int max() {
        return max;
    }

    Duration target() {
        return Duration.ofNanos(targetNanos);
    }
}
