package io.vesta.sequence;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.EmbeddedIdService;
import io.vesta.Id;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * What docs/operations.md ("Leap seconds") says of a repeated leap second: the kernel steps the clock back one second
 * at the end of 23:59:59 and plays that second again. {@code MAX_PEAK} carries on in the same second without a wait or a
 * refusal; {@code MIN_GRANULARITY} refuses for about a second, then issues again without a restart. No ID twice.
 */
class LeapSecondTests {

    /** The last second of 2026-12-31, the one a leap second repeats. */
    private static final Instant LAST_SECOND = Instant.parse("2026-12-31T23:59:59Z");

    private final ManualTimeSource clock = new ManualTimeSource(LAST_SECOND);
    private final Set<Long> issued = new HashSet<>();

    private EmbeddedIdService service(SequencerStrategy strategy, IdType type) {
        return EmbeddedIdService.builder().type(type).machineId(9).sequencer(strategy).timeSource(clock).build();
    }

    private long unitOf(IdType type, Instant instant) {
        return new IdCodec(IdCodec.DEFAULT_EPOCH).timeOf(type, instant.toEpochMilli());
    }

    /** Moves the clock forward to {@code instant} as time passing would; never back (a wait may have moved it on). */
    private void passTo(Instant instant) {
        long behind = instant.toEpochMilli() - clock.currentTimeMillis();
        if (behind > 0) {
            clock.advance(Duration.ofMillis(behind));
        }
    }

    private long issue(EmbeddedIdService service) {
        long id = service.genId();
        if (!issued.add(id)) {
            fail("ID " + id + " issued twice: " + service.expId(id));
        }
        return id;
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void maxPeakCarriesOnInTheRepeatedSecondWithoutWaitOrRefusal(SequencerStrategy strategy) {
        EmbeddedIdService service = service(strategy, IdType.MAX_PEAK);
        long second = unitOf(IdType.MAX_PEAK, LAST_SECOND);
        List<Long> ids = new ArrayList<>();
        for (int ms = 0; ms < 1000; ms += 10) {
            passTo(LAST_SECOND.plusMillis(ms));
            ids.add(issue(service));
        }
        long seqBeforeStep = service.expId(ids.get(ids.size() - 1)).seq();

        clock.set(LAST_SECOND); // end of 23:59:59: the kernel plays it again
        for (int ms = 0; ms < 1000; ms += 10) {
            passTo(LAST_SECOND.plusMillis(ms));
            ids.add(issue(service));
        }
        passTo(LAST_SECOND.plusSeconds(1)); // 00:00:00 of the new year
        long afterLeap = issue(service);

        assertThat(clock.sleeps()).as("waits").isZero();
        assertThat(service.clockBackwardSteps()).as("steps back seen").isZero();
        assertThat(ids).as("increasing").isSorted().doesNotHaveDuplicates().hasSize(200);
        assertThat(ids).allSatisfy(id -> assertThat(service.expId(id).time()).isEqualTo(second));
        assertThat(service.expId(ids.get(100))).extracting(Id::time, Id::seq).containsExactly(second, seqBeforeStep + 1);
        assertThat(service.expId(afterLeap)).extracting(Id::time, Id::seq).containsExactly(second + 1, 0L);
    }

    @ParameterizedTest
    @EnumSource(SequencerStrategy.class)
    void minGranularityRefusesForAboutASecondThenIssuesAgain(SequencerStrategy strategy) {
        EmbeddedIdService service = service(strategy, IdType.MIN_GRANULARITY);
        long lastBeforeStep = 0;
        for (int ms = 0; ms < 1000; ms++) {
            passTo(LAST_SECOND.plusMillis(ms));
            lastBeforeStep = issue(service);
        }
        assertThat(service.expId(lastBeforeStep).time()).isEqualTo(unitOf(IdType.MIN_GRANULARITY,
                LAST_SECOND.plusMillis(999)));

        clock.set(LAST_SECOND); // end of 23:59:59: the kernel plays it again
        long steppedAt = clock.currentTimeMillis();
        long refusals = 0;
        long firstIssuedAt = -1;
        long firstAfterStep = 0;
        List<Long> after = new ArrayList<>();
        for (int ms = 0; ms < 1100; ms++) {
            passTo(LAST_SECOND.plusMillis(ms));
            long readingBefore = clock.currentTimeMillis();
            boolean healthy = service.clockHealthy();
            try {
                long id = issue(service);
                assertThat(healthy).as("health at %s ms after the step, when issuing", readingBefore - steppedAt)
                        .isTrue();
                if (firstIssuedAt < 0) {
                    firstIssuedAt = readingBefore;
                    firstAfterStep = id;
                }
                after.add(id);
            } catch (ClockMovedBackwardsException e) {
                assertThat(firstIssuedAt).as("a refusal after IDs flowed again").isNegative();
                assertThat(healthy).as("health at %s ms after the step, when refused", readingBefore - steppedAt)
                        .isFalse();
                refusals++;
            }
        }

        long refusedFor = firstIssuedAt - steppedAt;
        assertThat(refusedFor).as("how long after the step IDs flowed again (ms)").isBetween(990L, 1000L);
        assertThat(refusals).as("refused calls, one a millisecond").isEqualTo(refusedFor);
        assertThat(firstAfterStep).as("first ID after the step, against the last before it")
                .isGreaterThan(lastBeforeStep);
        assertThat(after).as("IDs after the step").isSorted().doesNotHaveDuplicates().hasSizeGreaterThan(90);
        assertThat(issued).hasSize(1000 + after.size());
    }
}
