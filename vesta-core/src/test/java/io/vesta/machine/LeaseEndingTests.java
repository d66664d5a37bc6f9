package io.vesta.machine;

import io.vesta.machine.MachineIdLeaseInfo.State;
import io.vesta.machine.MachineIdLeases.Released;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rules every time-leased store applies before ending a lease, and what it says afterwards. */
class LeaseEndingTests {

    private static final Instant EXPIRY = Instant.parse("2026-06-01T12:00:30Z");
    private static final Instant HIGH_WATER = Instant.parse("2026-06-01T12:00:10Z");

    private static MachineIdLeaseInfo lease(State state, boolean self) {
        return new MachineIdLeaseInfo(930, state, "ids-1@10.0.0.7:8080", EXPIRY, HIGH_WATER, 4, self);
    }

    @Test
    void thisProcesssOwnLeaseIsNeverEndedEvenByForce() {
        assertThatThrownBy(() -> LeaseEnding.check(lease(State.LIVE, true), true))
                .isInstanceOfSatisfying(LeaseChangeRefusedException.class, refused -> {
                    assertThat(refused.reason()).isEqualTo("own");
                    assertThat(refused.machineId()).isEqualTo(930);
                })
                .hasMessageContaining("held by this process")
                .hasMessageContaining("ids-1@10.0.0.7:8080");
    }

    @Test
    void aLiveLeaseIsEndedOnlyByForce() {
        assertThatThrownBy(() -> LeaseEnding.check(lease(State.LIVE, false), false))
                .isInstanceOfSatisfying(LeaseChangeRefusedException.class,
                        refused -> assertThat(refused.reason()).isEqualTo("live"))
                .hasMessageContaining("live until " + EXPIRY)
                .hasMessageContaining("force");

        assertThat(LeaseEnding.check(lease(State.LIVE, false), true)).as("forced: the caller ends it").isNull();
    }

    @Test
    void aLeaseThatEndedAlreadyIsLeftAsItIsForcedOrNot() {
        for (boolean force : new boolean[] {false, true}) {
            MachineIdLeaseInfo expired = lease(State.EXPIRED, false);

            Released outcome = LeaseEnding.check(expired, force);

            assertThat(outcome).isNotNull();
            assertThat(outcome.ended()).isFalse();
            assertThat(outcome.before()).isSameAs(expired);
            assertThat(outcome.after()).isSameAs(expired);
            assertThat(outcome.detail()).contains("ended at " + EXPIRY).contains("after " + HIGH_WATER);
        }
    }

    @Test
    void aLeaseChangedBetweenReadAndWriteIsReportedAsChanged() {
        LeaseChangeRefusedException changed = LeaseEnding.changed(930);

        assertThat(changed.reason()).isEqualTo("changed");
        assertThat(changed.machineId()).isEqualTo(930);
        assertThat(changed).hasMessageContaining("read the leases again");
    }

    @Test
    void endingABlockNamesTheOtherIdsAndWarnsOnce() {
        RecordingLogger log = new RecordingLogger();
        MachineIdLeaseInfo before = lease(State.LIVE, false);
        MachineIdLeaseInfo after = new MachineIdLeaseInfo(930, State.EXPIRED, before.owner(), EXPIRY, HIGH_WATER, 5, false);

        Released block = LeaseEnding.ended(before, after, 8, "rows", "table vesta_machine", log);

        assertThat(block.ended()).isTrue();
        assertThat(block.after()).isSameAs(after);
        assertThat(block.detail()).contains("the other 7 machine IDs of its block").contains("after " + HIGH_WATER);
        assertThat(log.messages).singleElement().asString()
                .contains("the other 7 rows of its block").contains("table vesta_machine").contains("by force");
    }

    @Test
    void endingASingleIdSaysNothingOfABlock() {
        RecordingLogger log = new RecordingLogger();

        Released single = LeaseEnding.ended(lease(State.LIVE, false), lease(State.EXPIRED, false), 1, "entries",
                "Redis hash vesta:machine", log);

        assertThat(single.detail()).doesNotContain("block");
        assertThat(log.messages).singleElement().asString().doesNotContain("block").contains("Redis hash vesta:machine");
    }

    /** Keeps what was logged, so that the warning an operator sees can be read back. */
    private static final class RecordingLogger implements System.Logger {

        final List<String> messages = new ArrayList<>();

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, Supplier<String> message) {
            messages.add(level + " " + message.get());
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
            messages.add(level + " " + message);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            messages.add(level + " " + format);
        }
    }
}
