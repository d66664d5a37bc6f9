package io.vesta.machine;

import java.time.Duration;

/**
 * When a {@link LeasedMachineIdProvider} that lost its block claims again, counted in its timer's ticks (one renewal
 * interval each): at the first tick after the loss, so that a loss that is an operator's release, or a store that is
 * settling, shows itself before the claim reads it; after each failed claim twice as many ticks as before, up to
 * {@link LeasedMachineIdProvider#MAX_REGAIN_BACKOFF}. Used on the timer's thread and under the store lock.
 */
final class RegainBackoff {

    private final long maxTicks;
    private long ticksToClaim;
    private long backoffTicks;

    RegainBackoff(Duration interval, Duration maxBackoff) {
        this.maxTicks = Math.max(1, maxBackoff.toMillis() / interval.toMillis());
    }

    /** The block was lost: claim at the next tick. */
    void lost() {
        ticksToClaim = 1;
        backoffTicks = 1;
    }

    /** One tick passed: whether to claim now. */
    boolean due() {
        return --ticksToClaim <= 0;
    }

    /** A claim failed: the ticks until the next one. */
    long failed() {
        backoffTicks = Math.min(backoffTicks * 2, maxTicks);
        ticksToClaim = backoffTicks;
        return backoffTicks;
    }
}
