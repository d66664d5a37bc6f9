package io.vesta;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The clock is behind a time IDs may already have been issued in, by more than the configured wait. No ID is issued
 * until the clock catches up; the generator's state is untouched, so the next call after that succeeds.
 *
 * <p>Two different things end here, and the message says which ({@link #reservedBy()}): a clock stepped back behind
 * IDs this generator issued, or a clock that has not yet reached the time reserved before this generator started
 * (the high-water mark of its previous run, or the lease high-water mark of the machine ID's previous holder). The
 * second is what a restart within that reservation sees: the clock did not move, the generator waits out a time
 * IDs may have been issued in before it started.
 */
public class ClockMovedBackwardsException extends IllegalStateException {

    private final Instant lastTime;
    private final Instant currentTime;
    private final Duration maxBackwardWait;
    private final Instant resumesAt;
    private final String reservedBy;

    public ClockMovedBackwardsException(Instant lastTime, Instant currentTime, Duration maxBackwardWait) {
        this("Clock moved backwards: IDs were already issued up to " + lastTime + " but the clock reads "
                + currentTime + ", " + Duration.between(currentTime, lastTime).toMillis()
                + " ms behind, beyond the maximum wait of " + maxBackwardWait.toMillis()
                + " ms (maxBackwardWait). No ID is issued until the clock catches up.", lastTime, currentTime, maxBackwardWait,
                lastTime, null);
    }

    private ClockMovedBackwardsException(String message, Instant lastTime, Instant currentTime, Duration maxBackwardWait,
            Instant resumesAt, String reservedBy) {
        super(message);
        this.lastTime = lastTime;
        this.currentTime = currentTime;
        this.maxBackwardWait = maxBackwardWait;
        this.resumesAt = resumesAt;
        this.reservedBy = reservedBy;
    }

    /**
     * The clock was stepped back while a caller waited for it to reach {@code target}: the wait ran for longer
     * than the distance plus {@code maxBackwardWait} on the monotonic clock without the wall clock getting there.
     */
    public static ClockMovedBackwardsException duringWait(Instant target, Instant currentTime, Duration maxBackwardWait) {
        return new ClockMovedBackwardsException("Clock moved backwards during a wait: the generator waited for the clock"
                + " to reach " + target + " for longer than that distance plus the maximum wait of "
                + maxBackwardWait.toMillis() + " ms (maxBackwardWait), and the clock now reads " + currentTime
                + ". No ID is issued until the clock catches up.", target, currentTime, maxBackwardWait, target, null);
    }

    /**
     * The generator has issued nothing yet and the clock is behind the mark it started after: time reserved before
     * it started, in which IDs may have been issued under its machine ID.
     *
     * @param mark the reserved time: no ID of this generator is in a unit that starts before it
     * @param resumesAt the start of the first unit after the mark, where issuing resumes
     * @param reservedBy who reserved the time, and where the mark was read, as the end of a sentence
     * @param clockBehind why the distance means that the clock is behind, not only a restart within the reservation
     *        (the mark is further ahead than its source ever reserves), or null when a restart explains it
     */
    public static ClockMovedBackwardsException beforeReservedTime(Instant mark, Instant resumesAt, Instant currentTime,
            Duration maxBackwardWait, String reservedBy, String clockBehind) {
        return new ClockMovedBackwardsException("Not issuing yet: the clock has not reached the time reserved before this"
                + " generator started. It reads " + currentTime + ", " + Duration.between(currentTime, mark).toMillis()
                + " ms before " + mark + ", up to which " + reservedBy + ". IDs issued in that time must not be issued"
                + " again, so issuing resumes at " + resumesAt + ", in " + Duration.between(currentTime, resumesAt).toMillis()
                + " ms, further off than the maximum wait of " + maxBackwardWait.toMillis() + " ms (maxBackwardWait) that a"
                + " call waits out. " + (clockBehind != null ? clockBehind
                        : "After a restart within that reservation this is expected: the clock has not moved backwards."),
                mark, currentTime, maxBackwardWait, resumesAt, reservedBy);
    }

    /**
     * The time the clock is behind: the start of the last time unit IDs were issued in, or the time reserved up to
     * before the generator started ({@link #reservedBy()}).
     */
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

    /** The earliest time an ID can be issued again by the clock: the clock must get there first. */
    public Instant resumesAt() {
        return resumesAt;
    }

    /** How long from {@link #currentTime()} until {@link #resumesAt()}; the earliest a retry can succeed. */
    public Duration untilResume() {
        return Duration.between(currentTime, resumesAt);
    }

    /**
     * Who reserved the time the clock has not reached, and where the mark was read, when this generator has issued
     * nothing yet and waits out a mark from before it started (a restart, a takeover of a machine ID); empty when
     * the clock moved backwards behind IDs this generator issued.
     */
    public Optional<String> reservedBy() {
        return Optional.ofNullable(reservedBy);
    }
}
