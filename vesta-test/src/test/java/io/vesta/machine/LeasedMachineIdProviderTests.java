package io.vesta.machine;

import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's protocol against a model of the database table: one row per machine ID whose writes are fenced by its
 * generation. The test drives the renewals itself through the engine's {@link LeaseTimer} and the clock by hand.
 */
class LeasedMachineIdProviderTests {

    private static final System.Logger LOG = System.getLogger(LeasedMachineIdProviderTests.class.getName());
    private static final long LEASE = 3_000;
    private static final long RENEWAL = 1_000;

    private final ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00Z"));
    private final RowStore store = new RowStore();
    private final List<Runnable> ticks = new ArrayList<>();
    private final List<LeasedMachineIdProvider<Long>> providers = new ArrayList<>();

    @AfterEach
    void closeProviders() {
        CountDownLatch held = store.hold;
        if (held != null) {
            held.countDown();
        }
        store.hold = null;
        providers.forEach(LeasedMachineIdProvider::close);
    }

    /** The table: rows of (owner, expiry, high water, generation); hooks let a call fail, hang or report a loss. */
    final class RowStore implements LeaseBackend<Long> {
        record Row(String owner, long expiry, long highWater, long generation) {
        }

        final TreeMap<Long, Row> rows = new TreeMap<>();
        final List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile CountDownLatch hold;
        volatile CountDownLatch entered;
        volatile RuntimeException failure;
        long releasedAt = Long.MIN_VALUE;

        private void enter(String call) {
            calls.add(call);
            CountDownLatch in = entered;
            if (in != null) {
                in.countDown();
            }
            CountDownLatch wait = hold;
            if (wait != null) {
                try {
                    wait.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            RuntimeException fail = failure;
            if (fail != null) {
                throw fail;
            }
        }

        @Override
        public String store() {
            return "model table";
        }

        @Override
        public String scope() {
            return "model";
        }

        @Override
        public String describe(LeaseClaim<Long> held) {
            return "model";
        }

        @Override
        public LeaseClaim<Long> claim(MachineIdRange range, int blockSize, boolean startUp) {
            enter("claim");
            return take(range, startUp);
        }

        private synchronized LeaseClaim<Long> take(MachineIdRange range, boolean startUp) {
            long now = clock.currentTimeMillis();
            for (long id = range.min(); id <= range.max(); id++) {
                Row row = rows.get(id);
                if (row == null || row.expiry() <= now || (startUp && row.owner().equals("a"))) {
                    Long mark = row == null ? null : row.highWater();
                    long expiry = now + LEASE;
                    long generation = row == null ? 1 : row.generation() + 1;
                    rows.put(id, new Row("a", expiry, mark == null ? expiry : Math.max(mark, expiry), generation));
                    return new LeaseClaim<>(MachineIdBlock.of(id), expiry, mark, null, generation);
                }
            }
            throw new MachineIdUnavailableException("the range is full");
        }

        @Override
        public Renewal<Long> renew(LeaseClaim<Long> held, long expiry, long highWater) {
            enter("renew " + expiry);
            return write(held, expiry, highWater) ? Renewal.renewed(held.fence()) : Renewal.lost("taken over");
        }

        @Override
        public boolean release(LeaseClaim<Long> held, long now, long highWater) {
            enter("release " + now);
            releasedAt = now;
            return write(held, now, highWater);
        }

        private synchronized boolean write(LeaseClaim<Long> held, long expiry, long highWater) {
            Row row = rows.get(held.block().first());
            if (row == null || row.generation() != held.fence()) {
                return false;
            }
            rows.put(held.block().first(), new Row(row.owner(), expiry, highWater, row.generation()));
            return true;
        }

        /** Another node takes the row over: the holder's next write matches nothing. */
        synchronized void takeOver(long id) {
            Row row = rows.get(id);
            rows.put(id, new Row("b", row.expiry(), row.highWater(), row.generation() + 1));
        }

        @Override
        public MachineIdLeases leases(LongPredicate heldHere) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Duration closeTimeout() {
            return Duration.ofMillis(1_500);
        }
    }

    private LeasedMachineIdProvider<Long> provider(TimeSource time) {
        LeaseSettings settings = new LeaseSettings("a", Duration.ofMillis(LEASE), Duration.ofMillis(RENEWAL), time,
                (name, period, tick) -> {
                    ticks.add(tick);
                    return () -> ticks.remove(tick);
                }, "", LeaseSettings.Limits.heartbeat(255)).validate();
        LeasedMachineIdProvider<Long> provider = new LeasedMachineIdProvider<>(store, settings, "Test", LOG);
        providers.add(provider);
        return provider;
    }

    private LeasedMachineIdProvider<Long> acquired() {
        LeasedMachineIdProvider<Long> provider = provider(clock);
        assertThat(provider.acquire(new MachineIdRange(0, 3))).isZero();
        return provider;
    }

    @Test
    void aRenewalExtendsTheLeaseOnlyToAnEndTheStoreConfirmed() {
        LeasedMachineIdProvider<Long> provider = acquired();
        long start = clock.currentTimeMillis();
        assertThat(provider.lease().heldUntil()).isEqualTo(start + LEASE);
        assertThat(ticks).hasSize(1);

        clock.advance(Duration.ofMillis(RENEWAL));
        ticks.get(0).run();
        assertThat(provider.lease().heldUntil()).isEqualTo(start + RENEWAL + LEASE);
        assertThat(store.rows.get(0L).highWater()).isEqualTo(start + RENEWAL + LEASE);

        store.failure = new IllegalStateException("connection reset");
        clock.advance(Duration.ofMillis(RENEWAL));
        assertThat(provider.renewNow()).as("still held until the confirmed end").isTrue();
        assertThat(provider.lease().heldUntil()).as("the written end was never confirmed")
                .isEqualTo(start + RENEWAL + LEASE);
        clock.advance(Duration.ofMillis(LEASE));
        assertThat(provider.renewNow()).isFalse();
        assertThat(provider.lease().isHeldAt(clock.currentTimeMillis())).isFalse();

        store.failure = null;
        assertThat(provider.renewNow()).as("a renewal that lands holds it again").isTrue();
        // Strictly above every end written before, confirmed or not.
        assertThat(provider.lease().heldUntil()).isEqualTo(clock.currentTimeMillis() + LEASE + 1)
                .isEqualTo(store.rows.get(0L).expiry());
    }

    /**
     * A store's client may fail with an exception that has no message (a timeout, a cancelled call): the warning must
     * still say what failed, not end in "null".
     */
    @Test
    void aRenewalFailureWithoutAMessageIsLoggedByItsKind() {
        LeasedMachineIdProvider<Long> provider = acquired();
        List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                logged.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(LeasedMachineIdProviderTests.class.getName());
        logger.addHandler(handler);
        try {
            store.failure = new java.util.concurrent.CancellationException();
            clock.advance(Duration.ofMillis(RENEWAL));
            assertThat(provider.renewNow()).isTrue();
        } finally {
            logger.removeHandler(handler);
            store.failure = null;
        }
        assertThat(logged).singleElement().asString().startsWith("Cannot renew the lease on machine ID 0 in")
                .contains(": java.util.concurrent.CancellationException;").doesNotContain("null");
    }

    /**
     * A clock stepped back after IDs were issued must not lower the release's mark below them: the next holder starts
     * right after the mark, and an ID of its own in a millisecond this node already issued in could repeat one.
     */
    @Test
    void aReleaseAfterTheClockSteppedBackStillCoversEveryIdIssued() {
        LeasedMachineIdProvider<Long> provider = provider(clock);
        io.vesta.EmbeddedIdService ids = io.vesta.EmbeddedIdService.builder().type(io.vesta.IdType.MIN_GRANULARITY)
                .machineIdProvider(provider).machineIdRange(new MachineIdRange(0, 3)).timeSource(clock)
                .maxBackwardWait(Duration.ZERO).build();
        clock.advance(Duration.ofMillis(500));
        long issuedAt = clock.currentTimeMillis();
        ids.genId();
        clock.advance(Duration.ofMillis(-400));

        ids.close();

        assertThat(store.releasedAt).as("the release reads the stepped-back clock").isLessThan(issuedAt);
        assertThat(store.rows.get(0L).highWater()).as("the mark the next holder starts after").isGreaterThan(issuedAt);
    }

    @Test
    void aRenewalThatReturnsAfterCloseBeganNeverRevivesTheLease() throws Exception {
        LeasedMachineIdProvider<Long> provider = acquired();
        store.hold = new CountDownLatch(1);
        store.entered = new CountDownLatch(1);
        CompletableFuture<Boolean> renewal = CompletableFuture.supplyAsync(provider::renewNow);
        assertThat(store.entered.await(5, TimeUnit.SECONDS)).isTrue();

        provider.close();
        assertThat(provider.lease().isEnded()).isTrue();
        store.hold.countDown();

        assertThat(renewal.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(store.calls).containsExactly("claim", store.calls.get(1));
        assertThat(store.rows.get(0L).expiry()).as("the renewal landed")
                .isGreaterThan(clock.currentTimeMillis() + LEASE - 1);
        assertThat(provider.lease().isHeldAt(clock.currentTimeMillis())).isFalse();
        assertThat(provider.lease().isEnded()).isTrue();
    }

    @Test
    void closeRevokesTheLeaseBeforeItReadsTheClockForTheRelease() {
        List<Boolean> endedAtReading = new ArrayList<>();
        List<Long> readings = new ArrayList<>();
        List<LeasedMachineIdProvider<Long>> self = new ArrayList<>();
        TimeSource ticking = new TimeSource() {
            @Override
            public long currentTimeMillis() {
                clock.advance(Duration.ofMillis(1));
                long now = clock.currentTimeMillis();
                if (!self.isEmpty() && self.get(0).isClosed()) {
                    readings.add(now);
                    endedAtReading.add(self.get(0).lease().isEnded());
                }
                return now;
            }

            @Override
            public boolean sleepUntil(long epochMillis, long maxNanos) {
                return clock.sleepUntil(epochMillis, maxNanos);
            }
        };
        self.add(provider(ticking));
        self.get(0).acquire(new MachineIdRange(0, 3));
        self.get(0).close();

        int release = readings.indexOf(store.releasedAt);
        assertThat(release).as("the release's reading").isNotNegative();
        assertThat(endedAtReading.get(release)).as("the lease had ended when the release read the clock").isTrue();
        assertThat(store.rows.get(0L).highWater()).isEqualTo(store.releasedAt + 1);
    }

    @Test
    void closeReturnsWithinItsBoundWhenTheStoreHangs() throws Exception {
        LeasedMachineIdProvider<Long> provider = acquired();
        store.hold = new CountDownLatch(1);
        store.entered = new CountDownLatch(1);
        CompletableFuture.runAsync(provider::renewNow);
        assertThat(store.entered.await(5, TimeUnit.SECONDS)).isTrue();

        long started = System.nanoTime();
        provider.close();
        long took = (System.nanoTime() - started) / 1_000_000;

        assertThat(took).isLessThan(provider.closeTimeout().toMillis() + 500);
        assertThat(provider.lease().isHeldAt(clock.currentTimeMillis())).isFalse();

        store.hold.countDown();
        LeasedMachineIdProvider<Long> hungRelease = provider(clock);
        store.hold = null;
        store.rows.clear();
        hungRelease.acquire(new MachineIdRange(0, 3));
        store.hold = new CountDownLatch(1);
        started = System.nanoTime();
        hungRelease.close();
        took = (System.nanoTime() - started) / 1_000_000;
        assertThat(took).isLessThan(hungRelease.closeTimeout().toMillis() + 500);
        store.hold.countDown();
    }

    @Test
    void aLossEndsTheLeaseForGoodAndARegainPublishesANewGrant() {
        LeasedMachineIdProvider<Long> provider = acquired();
        AtomicInteger regained = new AtomicInteger();
        provider.onRegain(regained::incrementAndGet);
        MachineIdGrant first = provider.grant().orElseThrow();
        assertThat(first.number()).isEqualTo(1);

        store.takeOver(0);
        assertThat(provider.renewNow()).isFalse();
        assertThat(provider.isLost()).isTrue();
        assertThat(first.lease().isEnded()).isTrue();
        assertThat(first.lease().lostReason()).contains("taken over");
        assertThat(first.lease().extend(Long.MAX_VALUE)).as("ended for good").isFalse();

        assertThat(provider.regainNow()).isTrue();
        MachineIdGrant second = provider.grant().orElseThrow();
        assertThat(second.number()).isEqualTo(2);
        assertThat(second.block()).isEqualTo(MachineIdBlock.of(1));
        assertThat(second.lease()).isNotSameAs(first.lease());
        assertThat(second.lease().isHeldAt(clock.currentTimeMillis())).isTrue();
        assertThat(first.lease().isHeldAt(clock.currentTimeMillis())).isFalse();
        assertThat(provider.lease()).isSameAs(second.lease());
        assertThat(regained).hasValue(1);
    }

    @Test
    void claimsAfterALossBackOffDoublingUpToTheMaximum() {
        LeasedMachineIdProvider<Long> provider = acquired();
        store.takeOver(0);
        store.failure = new IllegalStateException("store down");
        Runnable tick = ticks.get(0);
        tick.run(); // the renewal fails: the store is down, the lease runs on

        store.failure = null;
        store.takeOver(0);
        tick.run(); // the renewal finds the row taken: lost
        assertThat(provider.isLost()).isTrue();

        store.failure = new IllegalStateException("store down");
        List<Integer> claimTicks = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            int before = store.calls.size();
            tick.run();
            if (store.calls.size() > before) {
                claimTicks.add(i);
            }
        }
        // One interval after the loss, then 2, 4, 8, 16 intervals, then at most 30 s (30 intervals) apart.
        assertThat(claimTicks).containsExactly(1, 3, 7, 15, 31);
        store.failure = null;
        for (int i = 0; i < 30 && provider.isLost(); i++) {
            tick.run();
        }
        assertThat(provider.isLost()).isFalse();
        assertThat(provider.grant().orElseThrow().number()).isEqualTo(2);
    }

    @Test
    void closeWhileAcquiringGivesTheBlockBack() throws Exception {
        LeasedMachineIdProvider<Long> provider = provider(clock);
        store.hold = new CountDownLatch(1);
        store.entered = new CountDownLatch(1);
        CompletableFuture<Long> acquire =
                CompletableFuture.supplyAsync(() -> provider.acquire(new MachineIdRange(0, 3)));
        assertThat(store.entered.await(5, TimeUnit.SECONDS)).isTrue();

        provider.close();
        store.hold.countDown();

        assertThatThrownBy(() -> acquire.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was closed while it leased machine ID 0")
                .hasMessageContaining("it was given back");
        assertThat(store.rows.get(0L).expiry()).as("released").isLessThanOrEqualTo(clock.currentTimeMillis());
        assertThat(provider.lease().isHeldAt(clock.currentTimeMillis())).isFalse();
        assertThat(ticks).as("no renewals started").isEmpty();
    }
}
