package io.vesta.client;

import io.vesta.sequence.AdaptiveStep;

import java.time.Duration;

/**
 * How many IDs the next batch asks for, and whether the next batch is fetched ahead of need, adapted to use and to
 * the age bound of the IDs ({@code maxIdAge}, counted from when a batch's request was sent).
 *
 * <p>While calls come often, the size adapts by Leaf's rule for its segment step ({@link AdaptiveStep}): a batch
 * used up sooner than the target lifetime, or before the next one arrived, doubles the next request, up to the
 * maximum; a batch that lasted twice the target or longer halves it, down to the minimum. The target is the
 * configured batch lifetime, but at most an eighth of the bound: the next batch is fetched once the refill threshold of the current one is used, and then
 * waits for the current one to be used up before its own use starts, so its last ID is handed out some twice a
 * batch's lifetime, plus the fetch, after it was asked for; a lifetime of at most a quarter of the bound keeps that
 * near half of it. The age of a batch's last IDs checks the growth: a batch whose last IDs were handed out more than a
 * third of the bound after its request does not grow the next, more than half halves it. That is what limits a busy
 * MIN_GRANULARITY client, whose server takes about a millisecond per 1,024 IDs to reserve a batch; and since the next
 * batch is asked for before the current one's age is known, no request exceeds what the server issued lately in a
 * third of the bound ({@link #issued}). So a busy client
 * asks for large batches and keeps its server's generator busy, and a slower one for small batches that are used up
 * before they grow old.
 *
 * <p>A batch that grew older than the bound before it was used up ends early: the size drops to what was used of it,
 * or half, whichever is less; one that grew too old before its use even began halves it. Either way the size does not
 * grow for the next {@value #COOLDOWN_BATCHES} batches: on a loaded machine the size that expired once is likely to
 * expire again, and each expiry throws a batch's rest away. When the calls come so
 * seldom (an eighth of the bound apart or more) that a batch fetched ahead could hold two IDs at most, the client is
 * <em>quiet</em>: it fetches nothing ahead, and each batch, fetched when a call needs it, holds the IDs that fit in
 * four fifths of the bound at that pace (a fifth left for the fetch itself): four IDs when calls come a quarter of the
 * bound apart, one when they come further apart than four fifths of it. So a quiet client fetches for every call only
 * when its calls are about the bound apart, and nothing is fetched only to be thrown away.
 * Not thread-safe: the buffer calls it under its lock.
 */
final class BatchSizer {

    private final int min;
    private final int max;
    private final long maxAgeNanos;
    private final long targetNanos;
    /** How long a quiet client's batch is sized to last: four fifths of the bound, a fifth left for the fetch. */
    private final long quietSpanNanos;
    private int size;
    private boolean quiet;
    /** Batches still to end before the size may grow again after one grew too old. */
    private int cooldown;
    /** The largest request the server's pace allows: what it issued, lately, in a third of the bound. */
    private int paceCap;

    /** How many batches after an expiry the size does not grow: growth that expires again only throws IDs away. */
    static final int COOLDOWN_BATCHES = 8;

    /**
     * @param min the smallest request
     * @param first the first request
     * @param max the largest request
     * @param batchLifetime how long a batch should last, when the age bound allows
     * @param maxAge the oldest an ID may be when it is handed out, counted from when its batch was asked for
     */
    BatchSizer(int min, int first, int max, Duration batchLifetime, Duration maxAge) {
        if (min < 1 || first < min || max < first) {
            throw new IllegalArgumentException("need 1 <= min <= first <= max, was min " + min + ", first " + first
                    + ", max " + max);
        }
        this.min = min;
        this.max = max;
        this.maxAgeNanos = maxAge.toNanos();
        this.targetNanos = Math.max(1, Math.min(batchLifetime.toNanos(), maxAgeNanos / 8));
        this.quietSpanNanos = maxAgeNanos / 5 * 4;
        this.size = first;
        this.paceCap = max;
    }

    /**
     * A batch arrived whose IDs' times show the server took at least {@code spanNanos} to issue {@code count} IDs:
     * it issues no faster than that, so a batch is capped at what it issues in a third of the bound, and the size drops
     * to that at once. A server that issued a batch within a time unit or two ({@code spanNanos} 0) says nothing of
     * its pace, and leaves the cap as it was.
     *
     * <p>Without the cap a busy client's batches outgrow the bound: every batch leaves a caller waiting, so each
     * doubles the size, and the age of a batch is known only once it has been used, after the next one (twice as large)
     * was already asked for. Measured on a MIN_GRANULARITY server with one machine ID (1,024 IDs a millisecond, 100 ms
     * bound): 12,500, 25,000, 50,000, then 100,000 IDs, which alone take the server 98 ms to issue and expired before
     * they arrived, every time, throwing away a third of the IDs. A third of the bound for issuing leaves two thirds
     * for the answer's journey, the wait behind the batch in use, and the batch's own use.
     */
    void issued(int count, long spanNanos) {
        if (spanNanos <= 0 || count < 1) {
            return;
        }
        double fits = (double) count * (maxAgeNanos / 3.0) / spanNanos;
        paceCap = (int) Math.max(min, Math.min(max, fits));
        size = Math.min(size, paceCap);
    }

    /** The size of the next request. */
    int size() {
        return size;
    }

    /** Whether the next batch is fetched ahead, while the current one is still in use; false while calls are rare. */
    boolean fetchAhead() {
        return !quiet;
    }

    /** The oldest an ID may be when it is handed out, in nanoseconds from when its batch was asked for. */
    long maxAgeNanos() {
        return maxAgeNanos;
    }

    /**
     * A batch stopped being the one in use, {@code lifetimeNanos} after it became it.
     * @param used how many of its IDs were handed out
     * @param ageNanos how long before it stopped being the one in use its server likely issued its first ID
     * @param expired whether it ended because its IDs grew older than the bound, the rest dropped, rather than used up
     * @param starved whether a caller found it used up before the next batch, fetched ahead, had arrived
     */
    void ended(int used, long lifetimeNanos, long ageNanos, boolean expired, boolean starved) {
        // The time between calls, at most: the call that found the batch done came one gap after the last ID.
        long gapNanos = lifetimeNanos / Math.max(1, used);
        if (8 * gapNanos >= maxAgeNanos) {
            // Fetched ahead, a batch waits about its own lifetime before its use starts, so at this pace it could
            // hold two IDs at most. Fetched when a call needs it, it holds what fits in the bound.
            quiet = true;
            long fit = 1 + quietSpanNanos / Math.max(1, gapNanos);
            size = (int) Math.max(min, Math.min(paceCap, expired ? Math.min(fit, used) : fit));
            return;
        }
        quiet = false;
        boolean mayGrow = cooldown == 0;
        if (cooldown > 0) {
            cooldown--;
        }
        if (expired) {
            size = Math.max(min, Math.min(size / 2, used));
            cooldown = COOLDOWN_BATCHES;
        } else if (2 * ageNanos > maxAgeNanos) {
            // Used up, but its last IDs came close to the bound: the server took long to reserve it (a
            // MIN_GRANULARITY server reserves 1,024 IDs a millisecond), or it waited long behind the one before.
            size = Math.max(min, size / 2);
        } else if (3 * ageNanos > maxAgeNanos) {
            // Growing would bring the next batch's last IDs close to the bound.
            if (lifetimeNanos > 2 * targetNanos) {
                size = Math.max(min, size / 2);
            }
        } else if (mayGrow || lifetimeNanos >= targetNanos) {
            // Leaf's rule; a batch a caller found used up before the next arrived lasted too short, whatever its time.
            size = (int) AdaptiveStep.next(size, starved && mayGrow ? 0 : lifetimeNanos, targetNanos, min, paceCap);
        }
    }

    /**
     * A batch grew older than the bound before its use began: it arrived too late, or waited too long behind the one
     * in use. Halves the size: a smaller batch is reserved and sent sooner, and waits less behind a smaller one.
     */
    void expiredUnused() {
        size = Math.max(min, size / 2);
        cooldown = COOLDOWN_BATCHES;
    }

    int min() {
        return min;
    }

    int max() {
        return max;
    }

    /** The largest request the server's pace allows, {@link #max()} until a batch showed its pace. */
    int paceCap() {
        return paceCap;
    }

    Duration target() {
        return Duration.ofNanos(targetNanos);
    }
}
