package io.vesta.sequence;

/**
 * Leaf's rule for how many numbers the next reservation takes, from how long the last one lasted: one used up sooner
 * than the target doubles the next (up to {@code max}), one that lasted twice the target or longer halves it (down to
 * {@code min}), anything between keeps it. A segment tag's step and a client's batch size both follow it: in each, a
 * reservation too small for the pace costs a round trip too often, one too large leaves numbers unused for long.
 */
public final class AdaptiveStep {

    private AdaptiveStep() {
    }

    /**
     * The size of the next reservation.
     *
     * @param size the size of the one that ended
     * @param lasted how long it lasted, in any unit
     * @param target how long one should last, in the unit of {@code lasted}
     * @param min the smallest size
     * @param max the largest size a doubling reaches; a {@code size} above it comes down to it
     */
    public static long next(long size, long lasted, long target, long min, long max) {
        long next;
        if (lasted < target) {
            next = Math.min(2 * size, max);
        } else if (lasted >= 2 * target) {
            next = size / 2;
        } else {
            next = size;
        }
        return Math.max(min, next);
    }
}
