package io.vesta.sequence;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A wall clock stepped back while a caller waits (for a used-up unit to end, or for a small step back to be
 * waited out) must not hold that caller, and every other caller, for the length of the step: every wait is
 * bounded on the monotonic clock, and what stays behind afterwards is refused like any large step back.
 */
class ClockStepDuringWaitTests {

    private static final Instant START = Instant.parse("2026-06-01T12:00:00Z");

    /** A manual clock whose waits a test takes over. */
    private abstract static class ManualClockWithWaitHook implements TimeSource {

        final ManualTimeSource clock = new ManualTimeSource(START);

        @Override
        public long currentTimeMillis() {
            return clock.currentTimeMillis();
        }

        @Override
        public long nanoTime() {
            return clock.nanoTime();
        }
    }

    /** A manual clock that steps its wall clock back by a set amount at the start of its first wait. */
    private static final class StepBackOnFirstWait extends ManualClockWithWaitHook {

        private final Duration step;
        private boolean stepped;

        StepBackOnFirstWait(Duration step) {
            this.step = step;
        }

        @Override
        public synchronized boolean sleepUntil(long epochMillis, long maxNanos) {
            if (!stepped) {
                stepped = true;
                clock.advance(step.negated());
            }
            return clock.sleepUntil(epochMillis, maxNanos);
        }
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void aStepBackDuringTheWaitForANewUnitIsRefusedNotWaitedOut(SequencerStrategy strategy) {
        StepBackOnFirstWait time = new StepBackOnFirstWait(Duration.ofSeconds(3));
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(3)
                .sequencer(strategy).timeSource(time).build();

        // 1500 IDs need two units of 1024: the call waits for the second unit, and the clock steps back 3 s then.
        assertThatThrownBy(() -> service.genIds(1500)).isInstanceOf(ClockMovedBackwardsException.class)
                .hasMessageContaining("during a wait");

        // The wait lasted the unit's remaining 1 ms plus the 5 ms that may be waited out (and the slack), not 3 s.
        assertThat(time.clock.slept()).isLessThanOrEqualTo(Duration.ofMillis(1 + 5 + Timeline.WAIT_SLACK_MILLIS));
        assertThat(service.clockBackwardSteps()).isEqualTo(1);
        assertThat(service.clockHealthy()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void aFurtherStepBackWhileASmallOneIsWaitedOutIsRefused(SequencerStrategy strategy) {
        StepBackOnFirstWait time = new StepBackOnFirstWait(Duration.ofMinutes(10));
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MAX_PEAK).machineId(3)
                .sequencer(strategy).timeSource(time).build();
        time.clock.advance(Duration.ofMillis(1500));
        long before = service.genId();
        time.clock.advance(Duration.ofMillis(-600)); // within the 1 s MAX_PEAK waits out

        assertThatThrownBy(service::genId).isInstanceOf(ClockMovedBackwardsException.class);

        // The 100 ms the clock was behind, plus the 1 s that may be waited out (and the slack), not 10 minutes.
        assertThat(time.clock.slept()).isLessThanOrEqualTo(Duration.ofMillis(100 + 1000 + Timeline.WAIT_SLACK_MILLIS));
        time.clock.set(START.plusSeconds(2));
        assertThat(service.genId()).isGreaterThan(before);
    }

    /** A first wait that gives up early, as on a loaded machine, while the wall clock keeps pace: no step back. */
    private static final class FirstWaitEndsEarly extends ManualClockWithWaitHook {

        private boolean first = true;

        @Override
        public synchronized boolean sleepUntil(long epochMillis, long maxNanos) {
            if (first) {
                first = false;
                return false; // woke up with nothing reached; both clocks moved alike (not at all)
            }
            return clock.sleepUntil(epochMillis, maxNanos);
        }
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void aWaitCutShortWhileTheClockKeepsPaceGoesOnAndIsNoStepBack(SequencerStrategy strategy) {
        FirstWaitEndsEarly time = new FirstWaitEndsEarly();
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(3)
                .sequencer(strategy).timeSource(time).build();

        assertThat(service.genIds(1500)).hasSize(1500).doesNotHaveDuplicates();
        assertThat(service.clockBackwardSteps()).isZero();
    }

    /** Blocks the first caller that waits until the test lets it go; the wall clock never moves by itself. */
    private static final class BlockingWait extends ManualClockWithWaitHook {

        final CountDownLatch waiting = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public boolean sleepUntil(long epochMillis, long maxNanos) {
            waiting.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return clock.sleepUntil(epochMillis, maxNanos);
        }
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void healthAndMetricsNeverWaitForACallerThatWaitsForTheClock(SequencerStrategy strategy) throws Exception {
        BlockingWait time = new BlockingWait();
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(3)
                .sequencer(strategy).timeSource(time).build();
        // A thread each for the caller and the readers: on two cores JDK 25 runs both on the common pool's one
        // thread, where the readers would queue behind the blocked caller (JDK 17 gave each task a thread).
        ExecutorService threads = Executors.newFixedThreadPool(2);
        Future<long[]> caller = threads.submit(() -> service.genIds(1500));
        assertThat(time.waiting.await(10, TimeUnit.SECONDS)).as("the caller waits for the next unit").isTrue();

        try {
            // What the health indicator, the meters and the Actuator endpoint read, while the caller (under LOCK
            // or SYNCHRONIZED, holding the generator's lock) waits.
            CompletableFuture<String> readers = CompletableFuture.supplyAsync(() -> service.clockHealthy() + " "
                    + service.clockBehind() + " " + service.idsIssued() + " " + service.lastIssuedTime() + " "
                    + service.exhaustedWaits() + " " + service.clockBackwardSteps(), threads);
            String read = readers.get(5, TimeUnit.SECONDS);
            assertThat(read).startsWith("true PT0S 1024 ");
        } finally {
            time.release.countDown();
        }
        assertThat(caller.get(10, TimeUnit.SECONDS)).hasSize(1500).doesNotHaveDuplicates();
        threads.shutdown();
    }
}
