package io.vesta.machine;

import io.vesta.InvalidSettingException;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LeaseLifecycleTest {

    private static final System.Logger LOG = System.getLogger(LeaseLifecycleTest.class.getName());

    private final ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00Z"));
    private final LeaseLifecycle lifecycle = new LeaseLifecycle("node-a", "ids", "heartbeat", clock, LOG);
    private final long now = clock.currentTimeMillis();

    @AfterEach
    void closeLifecycle() {
        lifecycle.close(Duration.ofSeconds(1), at -> null, () -> "");
    }

    @Test
    void startHoldsTheLeaseToTheConfirmedEndAndRenewsOnANamedDaemonThread() throws Exception {
        CountDownLatch renewed = new CountDownLatch(2);
        AtomicReference<Thread> renewer = new AtomicReference<>();
        assertThat(lifecycle.start(7, now + 30_000, Duration.ofMillis(10), () -> {
            renewer.set(Thread.currentThread());
            renewed.countDown();
        })).isTrue();

        assertThat(lifecycle.lease().isHeldAt(now + 29_999)).isTrue();
        assertThat(lifecycle.lease().isHeldAt(now + 30_000)).isFalse();
        assertThat(lifecycle.machineId()).isEqualTo(7);
        assertThat(lifecycle.isRenewing()).isTrue();
        assertThat(renewed.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(renewer.get().getName()).isEqualTo("vesta-machine-id-heartbeat-ids-7");
        assertThat(renewer.get().isDaemon()).isTrue();
        assertThatThrownBy(() -> lifecycle.start(8, now, Duration.ofMillis(10), () -> { }))
                .isInstanceOf(IllegalStateException.class).hasMessage("This lease already holds machine ID 7");
    }

    @Test
    void aReleaseMarksTheLastTimeTheProviderCouldHaveIssuedButNeverLessThanWhatItInherited() {
        assertThat(LeaseLifecycle.releaseMark(null, 5_000, 1_000)).as("closed before the lease ended").isEqualTo(1_001);
        assertThat(LeaseLifecycle.releaseMark(null, 5_000, 9_000)).as("closed after it ended").isEqualTo(5_000);
        assertThat(LeaseLifecycle.releaseMark(7_000L, 5_000, 1_000)).as("the previous holder may issue up to 7000")
                .isEqualTo(7_000);
        assertThat(LeaseLifecycle.releaseMark(500L, 5_000, 1_000)).isEqualTo(1_001);
    }

    @Test
    void aProviderLeasesOnceAndNeverAfterClose() {
        lifecycle.requireUnused("DbMachineIdProvider", () -> "nothing");
        lifecycle.start(7, now + 30_000, Duration.ofSeconds(10), () -> { });
        assertThatThrownBy(() -> lifecycle.requireUnused("DbMachineIdProvider", () -> "machine ID 7"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("This DbMachineIdProvider already holds machine ID 7; build a new one for another generator");
        lifecycle.close(Duration.ofSeconds(1), at -> null, () -> "");
        assertThatThrownBy(() -> lifecycle.requireUnused("DbMachineIdProvider", () -> "machine ID 7"))
                .isInstanceOf(IllegalStateException.class).hasMessage("This DbMachineIdProvider was closed; build a new one");
    }

    @Test
    void aRenewalThatThrowsDoesNotStopTheRenewals() throws Exception {
        CountDownLatch runs = new CountDownLatch(3);
        lifecycle.start(1, now + 30_000, Duration.ofMillis(10), () -> {
            runs.countDown();
            throw new IllegalStateException("a bug in one renewal");
        });
        assertThat(runs.await(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void onlyAConfirmedEndExtendsTheLeaseAndAFailedRenewalLetsItRunOut() {
        lifecycle.start(1, now + 1_000, Duration.ofHours(1), () -> { });

        assertThat(lifecycle.renewalFailed(now + 999, "Cannot renew")).as("held until the last confirmed end").isTrue();
        assertThat(lifecycle.renewalFailed(now + 1_000, "Cannot renew")).isFalse();
        assertThat(lifecycle.renewTo(now + 5_000, () -> "renewed again")).isTrue();
        assertThat(lifecycle.lease().heldUntil()).isEqualTo(now + 5_000);
    }

    @Test
    void aRenewalThatReturnsAfterCloseBeganCannotReviveTheLease() {
        lifecycle.start(1, now + 30_000, Duration.ofHours(1), () -> { });
        lifecycle.close(Duration.ofSeconds(1), at -> null, () -> "");

        assertThat(lifecycle.renewTo(now + 60_000, () -> "renewed")).isFalse();
        assertThat(lifecycle.lease().isHeldAt(now)).isFalse();
        assertThat(lifecycle.lease().lostReason()).isEqualTo("the machine-ID provider was closed");
        assertThat(lifecycle.isRenewing()).isFalse();
    }

    @Test
    void closeRevokesTheLeaseBeforeItReadsTheClockForTheRelease() {
        lifecycle.start(1, now + 30_000, Duration.ofHours(1), () -> { });
        clock.advance(Duration.ofMillis(5));
        AtomicLong releasedAt = new AtomicLong();
        AtomicBoolean heldDuringRelease = new AtomicBoolean(true);

        assertThat(lifecycle.close(Duration.ofSeconds(5), at -> {
            releasedAt.set(at);
            heldDuringRelease.set(lifecycle.lease().isHeldAt(at - 1));
            return null;
        }, () -> "")).isTrue();

        assertThat(releasedAt.get()).isEqualTo(now + 5);
        assertThat(heldDuringRelease).as("no ID can be issued while the release is written").isFalse();
        assertThat(lifecycle.close(Duration.ofSeconds(5), at -> {
            throw new AssertionError("released twice");
        }, () -> "")).as("a second close does nothing").isFalse();
    }

    @Test
    void closeReturnsWithinItsBoundWhenTheReleaseHangs() {
        lifecycle.start(1, now + 30_000, Duration.ofHours(1), () -> { });
        CountDownLatch never = new CountDownLatch(1);

        long started = System.nanoTime();
        lifecycle.close(Duration.ofMillis(200), at -> {
            never.await();
            return null;
        }, () -> "the lease ends by itself");

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
        assertThat(lifecycle.lease().isHeldAt(now)).isFalse();
        never.countDown();
    }

    @Test
    void closeDuringAcquireReleasesNothingAndTheStartIsRefused() {
        AtomicInteger releases = new AtomicInteger();
        lifecycle.close(Duration.ofSeconds(1), at -> {
            releases.incrementAndGet();
            return null;
        }, () -> "");

        assertThat(lifecycle.start(1, now + 30_000, Duration.ofMillis(10), () -> { })).isFalse();
        assertThat(lifecycle.lease().isHeldAt(now)).isFalse();
        assertThat(lifecycle.machineId()).isEqualTo(-1);
        assertThat(releases).hasValue(0);
    }

    @Test
    void aLostIdIsRevokedForGoodAndNotReleased() {
        AtomicInteger renewals = new AtomicInteger();
        lifecycle.start(3, now + 30_000, Duration.ofHours(1), renewals::incrementAndGet);

        lifecycle.lose("the row was taken over by node-b");
        lifecycle.lose("a second reason is not logged");

        assertThat(lifecycle.lease().isHeldAt(now)).isFalse();
        assertThat(lifecycle.lease().lostReason()).isEqualTo("machine ID 3 is no longer this node's (owner 'node-a'): the row"
                + " was taken over by node-b; build a new generator to get another ID");
        assertThat(lifecycle.isLost()).isTrue();
        assertThat(lifecycle.isRenewing()).isFalse();
        assertThat(lifecycle.renewTo(now + 60_000, () -> "renewed")).isFalse();
        assertThat(lifecycle.close(Duration.ofSeconds(1), at -> {
            throw new AssertionError("a lost ID is not released");
        }, () -> "")).isTrue();
    }

    @Test
    void aLostBlockIsClaimedAgainAsANewGrantWhoseLeaseIsItsOwnAndTheLostLeaseStaysRevoked() throws Exception {
        MachineIdBlock lostBlock = new MachineIdBlock(4, 4);
        MachineIdBlock newBlock = new MachineIdBlock(12, 4);
        AtomicInteger attempts = new AtomicInteger();
        AtomicReference<Thread> claimer = new AtomicReference<>();
        lifecycle.regainWith(() -> {
            claimer.set(Thread.currentThread());
            if (attempts.incrementAndGet() < 3) {
                throw new MachineIdUnavailableException("no block is free");
            }
            return new LeaseLifecycle.Regained(newBlock, now + 60_000, now + 5_000, () -> {
                throw new AssertionError("published, not given back");
            });
        });
        CountDownLatch told = new CountDownLatch(1);
        lifecycle.onRegain(told::countDown);
        assertThat(lifecycle.start(lostBlock, now + 30_000, null, Duration.ofMillis(10), () -> { })).isTrue();
        MachineIdGrant first = lifecycle.grant().orElseThrow();
        assertThat(first.number()).isEqualTo(1);
        assertThat(first.block()).isEqualTo(lostBlock);
        assertThat(first.notBefore()).isEmpty();

        lifecycle.lose("the rows were taken over by node-b");
        assertThat(first.lease().lostReason()).isEqualTo("machine IDs 4-7 are no longer this node's (owner 'node-a'):"
                + " the rows were taken over by node-b; this node claims another machine ID by itself");
        assertThat(first.lease().unheldSince()).isEqualTo(now);
        assertThat(told.await(10, TimeUnit.SECONDS)).as("the listener runs after the regain").isTrue();

        assertThat(attempts).as("two failed attempts, retried").hasValue(3);
        assertThat(claimer.get().getName()).isEqualTo("vesta-machine-id-regain-ids");
        MachineIdGrant second = lifecycle.grant().orElseThrow();
        assertThat(second.number()).isEqualTo(2);
        assertThat(second.block()).isEqualTo(newBlock);
        assertThat(second.notBefore()).hasValue(now + 5_000);
        assertThat(second.lease()).isNotSameAs(first.lease()).isSameAs(lifecycle.lease());
        assertThat(second.lease().isHeldAt(now)).isTrue();
        assertThat(lifecycle.machineId()).isEqualTo(12);
        assertThat(lifecycle.isLost()).isFalse();
        assertThat(lifecycle.renewTo(now + 90_000, () -> "renewed")).isTrue();
        assertThat(first.lease().isHeldAt(now)).as("the lost lease is never renewed again").isFalse();
        assertThat(second.lease().heldUntil()).isEqualTo(now + 90_000);
    }

    @Test
    void aBlockClaimedAgainAfterCloseBeganIsNotPublished() throws Exception {
        CountDownLatch claiming = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        CountDownLatch givenBack = new CountDownLatch(1);
        lifecycle.regainWith(() -> {
            claiming.countDown();
            // A backend call that does not answer an interrupt, as a JDBC call need not.
            for (;;) {
                try {
                    closed.await();
                    break;
                } catch (InterruptedException ignored) {
                    // close() interrupts the claim; it goes on regardless
                }
            }
            return new LeaseLifecycle.Regained(MachineIdBlock.of(9), now + 60_000, null, givenBack::countDown);
        });
        lifecycle.start(MachineIdBlock.of(3), now + 30_000, null, Duration.ofMillis(10), () -> { });
        lifecycle.lose("taken over");
        assertThat(claiming.await(10, TimeUnit.SECONDS)).isTrue();

        lifecycle.close(Duration.ofSeconds(1), at -> {
            throw new AssertionError("nothing is held to release");
        }, () -> "");
        closed.countDown();

        assertThat(givenBack.await(10, TimeUnit.SECONDS)).as("a block claimed after close() began is given back").isTrue();
        assertThat(lifecycle.grant().orElseThrow().number()).isEqualTo(1);
        assertThat(lifecycle.lease().isHeldAt(now)).isFalse();
        assertThat(lifecycle.machineId()).isEqualTo(3);
    }

    @Test
    void ownersMustBeSetNotBlankAndShortEnough() {
        assertThat(LeaseLifecycle.requireOwner("p.owner", "node-a", 6)).isEqualTo("node-a");
        assertRefused(() -> LeaseLifecycle.requireOwner("p.owner", "node-ab", 6), "p.owner", "node-ab",
                "1 to 6 characters, not blank", "p.owner=node-ab is 7 characters long; allowed: 1 to 6 characters, not blank");
        assertRefused(() -> LeaseLifecycle.requireOwner("p.owner", " ", 6), "p.owner", " ",
                "1 to 6 characters, not blank", "p.owner=  is blank; allowed: 1 to 6 characters, not blank");
        assertRefused(() -> LeaseLifecycle.requireOwner("p.owner", null, 6), "p.owner", null,
                "1 to 6 characters, not blank", "p.owner=(unset) is required; allowed: 1 to 6 characters, not blank");
    }

    @Test
    void aRenewalIntervalIsAtMostAThirdOfTheLease() {
        Duration lease = Duration.ofSeconds(9);
        assertThat(LeaseLifecycle.requireRenewalInterval("p.heartbeat", Duration.ofSeconds(3), Duration.ofMillis(10),
                "p.lease", lease)).isEqualTo(Duration.ofSeconds(3));
        String allowed = "a duration in [10ms, 3000ms] (at most a third of p.lease 9000ms)";
        assertRefused(() -> LeaseLifecycle.requireRenewalInterval("p.heartbeat", Duration.ofMillis(3_001),
                Duration.ofMillis(10), "p.lease", lease), "p.heartbeat", "3001ms", allowed,
                "p.heartbeat=3001ms is out of range; allowed: " + allowed);
        assertRefused(() -> LeaseLifecycle.requireRenewalInterval("p.heartbeat", Duration.ofMillis(9),
                Duration.ofMillis(10), "p.lease", lease), "p.heartbeat", "9ms", allowed,
                "p.heartbeat=9ms is out of range; allowed: " + allowed);
        assertRefused(() -> LeaseLifecycle.requireInRange("p.lease", null, Duration.ofSeconds(1), Duration.ofHours(1), ""),
                "p.lease", null, "a duration in [1000ms, 3600000ms]", "p.lease=(unset) is required; allowed: a duration in"
                        + " [1000ms, 3600000ms]");
    }

    private static void assertRefused(Runnable check, String setting, Object value, String allowed, String message) {
        assertThatThrownBy(check::run).isInstanceOfSatisfying(InvalidSettingException.class, e -> {
            assertThat(e.setting()).isEqualTo(setting);
            assertThat(e.value()).isEqualTo(value);
            assertThat(e.allowed()).isEqualTo(allowed);
            assertThat(e.getMessage()).isEqualTo(message);
        });
    }
}
