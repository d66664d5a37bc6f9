package io.vesta;

import java.time.Duration;
import java.time.Instant;

/**
 * The clock is behind the time of IDs already issued, by more than the configured wait. No ID is issued
 * until the clock catches up; the generator's state is untouched, so the next call after that succeeds.
 */
public class ClockMovedBackwardsException extends IllegalStateException {

    private final Instant lastTime;
    private final Instant currentTime;
    private final Duration maxBackwardWait;

    public ClockMovedBackwardsException(Instant lastTime, Instant currentTime, Duration maxBackwardWait) {
        super("Clock moved backwards: IDs were already issued up to " + lastTime + " but the clock reads "
                + currentTime + ", " + Duration.between(currentTime, lastTime).toMillis()
                + " ms behind, beyond the maximum wait of " + maxBackwardWait.toMillis()
                + " ms (maxBackwardWait). No ID is issued until the clock catches up.");
        this.lastTime = lastTime;
        this.currentTime = currentTime;
        this.maxBackwardWait = maxBackwardWait;
    }

    /** The start of the last time unit IDs were issued in (or reserved up to, after a restart). */
    public Instant lastTime() {
        return lastTime;
    }

    /** What the clock read when the step back was seen. */
    public Instant currentTime() {
        return currentTime;
    }

    /** How far behind the clock is. */
    public Duration behind() {
        return Duration.between(currentTime, lastTime);
    }

    public Duration maxBackwardWait() {
        return maxBackwardWait;
    }
}
