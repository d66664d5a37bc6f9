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
        this("Clock moved backwards: IDs were already issued up to " + lastTime + " but the clock reads "
                + currentTime + ", " + Duration.between(currentTime, lastTime).toMillis()
                + " ms behind, beyond the maximum wait of " + maxBackwardWait.toMillis()
                + " ms (maxBackwardWait). No ID is issued until the clock catches up.", lastTime, currentTime, maxBackwardWait);
    }

    private ClockMovedBackwardsException(String message, Instant lastTime, Instant currentTime, Duration maxBackwardWait) {
        super(message);
        this.lastTime = lastTime;
        this.currentTime = currentTime;
        this.maxBackwardWait = maxBackwardWait;
    }

    /**
     * The clock was stepped back while a caller waited for it to reach {@code target}: the wait ran for longer
     * than the distance plus {@code maxBackwardWait} on the monotonic clock without the wall clock getting there.
     */
    public static ClockMovedBackwardsException duringWait(Instant target, Instant currentTime, Duration maxBackwardWait) {
        return new ClockMovedBackwardsException("Clock moved backwards during a wait: the generator waited for the clock"
                + " to reach " + target + " for longer than that distance plus the maximum wait of "
                + maxBackwardWait.toMillis() + " ms (maxBackwardWait), and the clock now reads " + currentTime
                + ". No ID is issued until the clock catches up.", target, currentTime, maxBackwardWait);
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
