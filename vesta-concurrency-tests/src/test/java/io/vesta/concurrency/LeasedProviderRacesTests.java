package io.vesta.concurrency;

import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeaseTimer;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import org.junit.jupiter.api.extension.ExtendWith;
import org.pastalab.fray.junit.junit5.FrayTestExtension;
import org.pastalab.fray.junit.junit5.annotations.FrayTest;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The races of {@link LeasedMachineIdProvider}, explored by Fray: each test is one scenario of threads (issuers, the
 * renewal, a claim again after a loss, acquire, close(), a clock that moves, another node taking the block over), and
 * Fray runs it under many schedules, choosing at every lock, atomic and volatile access which thread goes next (plain
 * fields, which the engine reads under its lock, are not points of choice). The provider and its lease are the real
 * ones; the store is {@link InMemoryLeaseStore}, whose every call is atomic, and the timer does nothing: the scenario
 * calls {@code renewNow()} and {@code regainNow()} itself, so no schedule depends on a sleep. A failure prints the
 * schedule's recording under {@code target/fray/fray-report}, to replay it.
 */
@ExtendWith(FrayTestExtension.class)
class LeasedProviderRacesTests {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration RENEWAL = Duration.ofSeconds(1);
    private static final long START = 1_000;
    /** The scenarios renew and claim again themselves. */
    private static final LeaseTimer NO_TIMER = (name, periodMillis, tick) -> () -> {
    };
    private static final int ITERATIONS = 1_000;

    /**
     * Issuers read the lease while a renewal, the clock and close() run: no issuer finds the lease held once close()
     * returned, a renewal that comes back after close() never holds it again, and every ID is below the high water
     * close() released the block with, so the next holder never repeats one.
     */
    @FrayTest(iterations = ITERATIONS)
    void closeRacingRenewalAndIssuersEndsTheLeaseForGood() {
        StepClock clock = new StepClock(START);
        InMemoryLeaseStore store = new InMemoryLeaseStore(clock, LEASE);
        RecordingLogger log = new RecordingLogger();
        LeasedMachineIdProvider<Long> a = provider(store, "a", clock, log);
        a.acquire(new MachineIdRange(0, 0));
        IssueLedger ledger = new IssueLedger();

        race(() -> issueTwice(ledger, "a", a, clock),
                () -> issueTwice(ledger, "a", a, clock),
                () -> {
                    boolean afterClose = ledger.hasCloseReturned();
                    if (a.renewNow() && afterClose) {
                        ledger.violation("a renewal that began after close() returned held the lease");
                    }
                },
                () -> clock.advance(RENEWAL.toMillis()),
                () -> {
                    a.close();
                    ledger.closeReturned();
                });

        if (!a.lease().isEnded() || a.lease().isHeldAt(clock.currentTimeMillis()) || a.renewNow()) {
            ledger.violation("the lease is held after close(): until " + a.lease().heldUntil());
        }
        InMemoryLeaseStore.Row row = store.row(0);
        if (!row.released() || store.releases().size() != 1) {
            ledger.violation("close() did not release block 0 once: " + row + ", " + store.releases());
        }
        ledger.check(store, log);
    }

    /**
     * A node that lost its block claims another while close() runs: a block published as close() begins is never held
     * after close() returned, and the block claimed is given back, by the claim itself or by close(); never left held.
     */
    @FrayTest(iterations = ITERATIONS)
    void closeRacingAClaimAfterALossLeavesNoBlockHeld() {
        StepClock clock = new StepClock(START);
        InMemoryLeaseStore store = new InMemoryLeaseStore(clock, LEASE);
        RecordingLogger log = new RecordingLogger();
        LeasedMachineIdProvider<Long> a = provider(store, "a", clock, log);
        MachineIdRange range = new MachineIdRange(0, 1);
        a.acquire(range);
        store.takeOver(0, "b");
        IssueLedger ledger = new IssueLedger();

        race(() -> issueTwice(ledger, "a", a, clock),
                () -> {
                    a.renewNow();
                    a.regainNow();
                },
                () -> clock.advance(RENEWAL.toMillis()),
                () -> {
                    a.close();
                    ledger.closeReturned();
                });

        if (a.lease().isHeldAt(clock.currentTimeMillis()) || a.regainNow() || a.renewNow()) {
            ledger.violation("a grant is held after close(): " + a.grant());
        }
        InMemoryLeaseStore.Row claimed = store.row(1);
        if (claimed != null && (!claimed.released() || claimed.expiry() > clock.currentTimeMillis())) {
            ledger.violation("block 1, claimed again, was left held: " + claimed);
        }
        if (!store.row(0).owner().equals("b")) {
            ledger.violation("block 0 left 'b': " + store.row(0));
        }
        ledger.check(store, log);
    }

    /**
     * A renewal races another node that takes the block over once the lease has run out on the store's clock: the
     * fenced writes let only one of them have it, and the two never issue under it at overlapping times.
     */
    @FrayTest(iterations = ITERATIONS)
    void renewalRacingATakeoverNeverLetsTwoNodesHoldTheBlock() {
        StepClock clock = new StepClock(START);
        InMemoryLeaseStore store = new InMemoryLeaseStore(clock, LEASE);
        RecordingLogger logA = new RecordingLogger();
        RecordingLogger logB = new RecordingLogger();
        LeasedMachineIdProvider<Long> a = provider(store, "a", clock, logA);
        LeasedMachineIdProvider<Long> b = provider(store, "b", clock, logB);
        MachineIdRange range = new MachineIdRange(0, 0);
        a.acquire(range);
        IssueLedger ledger = new IssueLedger();

        race(() -> issueTwice(ledger, "a", a, clock),
                a::renewNow,
                () -> {
                    clock.advance(LEASE.toMillis() / 2);
                    clock.advance(LEASE.toMillis() - LEASE.toMillis() / 2);
                },
                () -> {
                    try {
                        b.acquire(range);
                    } catch (MachineIdUnavailableException e) {
                        return;
                    }
                    issueTwice(ledger, "b", b, clock);
                });

        boolean bHolds = b.grant().isPresent();
        if (bHolds && (a.renewNow() || !a.isLost() || a.lease().isHeldAt(clock.currentTimeMillis()))) {
            ledger.violation("'a' still holds block 0 after 'b' took it over: " + a.grant() + ", " + store.row(0));
        }
        if (!bHolds && !store.row(0).owner().equals("a")) {
            ledger.violation("neither holds block 0: " + store.row(0));
        }
        ledger.check(store, logA, logB);
    }

    /**
     * close() while acquire() is in the store: the block is given back or released and never held after close()
     * returned, and renewals that acquire() started after close() began are stopped.
     */
    @FrayTest(iterations = ITERATIONS)
    void closeRacingAcquireLeavesNothingHeldOrRenewing() {
        StepClock clock = new StepClock(START);
        InMemoryLeaseStore store = new InMemoryLeaseStore(clock, LEASE);
        RecordingLogger log = new RecordingLogger();
        AtomicInteger timersStarted = new AtomicInteger();
        AtomicInteger timersStopped = new AtomicInteger();
        LeaseTimer timer = (name, periodMillis, tick) -> {
            timersStarted.incrementAndGet();
            return timersStopped::incrementAndGet;
        };
        LeasedMachineIdProvider<Long> a = provider(store, "a", clock, log, timer);
        IssueLedger ledger = new IssueLedger();

        race(() -> {
                    try {
                        a.acquire(new MachineIdRange(0, 0));
                    } catch (IllegalStateException e) {
                        // closed before or while it leased: nothing is held, which the checks below see
                    }
                    issueTwice(ledger, "a", a, clock);
                },
                () -> issueTwice(ledger, "a", a, clock),
                () -> {
                    a.close();
                    ledger.closeReturned();
                });

        if (a.lease().isHeldAt(clock.currentTimeMillis()) || a.renewNow()) {
            ledger.violation("the lease is held after close(): " + a.grant());
        }
        if (timersStarted.get() != timersStopped.get()) {
            ledger.violation(timersStarted.get() + " renewal timers started, " + timersStopped.get() + " stopped");
        }
        InMemoryLeaseStore.Row row = store.row(0);
        if (row != null && !row.released()) {
            ledger.violation("block 0 was left held: " + row);
        }
        ledger.check(store, log);
    }

    private static LeasedMachineIdProvider<Long> provider(InMemoryLeaseStore store, String owner, StepClock clock,
            RecordingLogger log) {
        return provider(store, owner, clock, log, NO_TIMER);
    }

    private static LeasedMachineIdProvider<Long> provider(InMemoryLeaseStore store, String owner, StepClock clock,
            RecordingLogger log, LeaseTimer timer) {
        LeaseSettings settings = new LeaseSettings(owner, LEASE, RENEWAL, clock, timer, "vesta.machine-id.memory.",
                LeaseSettings.Limits.heartbeat(64)).validate();
        return new LeasedMachineIdProvider<>(store.backend(owner), settings, "LeasedMachineIdProvider", log);
    }

    private static void issueTwice(IssueLedger ledger, String owner, LeasedMachineIdProvider<?> provider,
            StepClock clock) {
        ledger.issue(owner, provider, clock);
        ledger.issue(owner, provider, clock);
    }

    /** Runs each step on a thread of its own, all at once, and waits for all; a step that throws fails the scenario. */
    private static void race(Runnable... steps) {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        Thread[] threads = new Thread[steps.length];
        for (int i = 0; i < steps.length; i++) {
            Runnable step = steps[i];
            threads[i] = new Thread(() -> {
                try {
                    step.run();
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "step-" + i);
        }
        for (Thread thread : threads) {
            thread.start();
        }
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while the steps ran", e);
            }
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("a step threw: " + failures.get(0), failures.get(0));
            failures.stream().skip(1).forEach(error::addSuppressed);
            throw error;
        }
    }
}
