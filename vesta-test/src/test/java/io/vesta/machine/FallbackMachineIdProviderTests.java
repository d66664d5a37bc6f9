package io.vesta.machine;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.InvalidSettingException;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongPredicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fallback machine ID over the real lease engine and a model of the lease table that can be down: the node starts
 * on the fallback, moves to a leased block once the store answers, back to the fallback when its lease runs out
 * unrenewed, and to the leased block again; no ID twice, and each block's IDs after every earlier one of that block.
 */
class FallbackMachineIdProviderTests {

    private static final System.Logger LOG = System.getLogger(FallbackMachineIdProviderTests.class.getName());
    private static final long LEASE = 3_000;
    private static final long RENEWAL = 1_000;
    private static final long FALLBACK = 1016;

    private final ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00Z"));
    private final Table table = new Table();
    private final List<Runnable> ticks = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @TempDir
    Path marks;

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /** A lease table of one owner that answers nothing while it is down. */
    final class Table implements LeaseBackend<Long> {
        record Row(long expiry, long highWater, long generation) {
        }

        final TreeMap<Long, Row> rows = new TreeMap<>();
        volatile boolean down;

        private void enter() {
            if (down) {
                throw new IllegalStateException("connection refused");
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
            return "db (model)";
        }

        @Override
        public synchronized LeaseClaim<Long> claim(MachineIdRange range, int blockSize, boolean startUp) {
            enter();
            long now = clock.currentTimeMillis();
            for (long id = range.min(); id <= range.max(); id++) {
                Row row = rows.get(id);
                Long mark = row == null ? null : row.highWater();
                long expiry = now + LEASE;
                long generation = row == null ? 1 : row.generation() + 1;
                rows.put(id, new Row(expiry, mark == null ? expiry : Math.max(mark, expiry), generation));
                return new LeaseClaim<>(MachineIdBlock.of(id), expiry, mark, null, generation);
            }
            throw new MachineIdUnavailableException("the range is full");
        }

        @Override
        public synchronized Renewal<Long> renew(LeaseClaim<Long> held, long expiry, long highWater) {
            enter();
            Row row = rows.get(held.block().first());
            rows.put(held.block().first(), new Row(expiry, Math.max(highWater, row.highWater()), row.generation()));
            return Renewal.renewed(held.fence());
        }

        @Override
        public synchronized boolean release(LeaseClaim<Long> held, long now, long highWater) {
            enter();
            Row row = rows.get(held.block().first());
            rows.put(held.block().first(), new Row(now, Math.max(highWater, row.highWater()), row.generation()));
            return true;
        }

        /** Its rows for an operator (the generator asks whether the provider has a store's leases at all). */
        @Override
        public MachineIdLeases leases(LongPredicate heldHere) {
            return new MachineIdLeases() {
                @Override
                public String describe() {
                    return store();
                }

                @Override
                public List<MachineIdLeaseInfo> list(MachineIdRange range) {
                    synchronized (Table.this) {
                        long now = clock.currentTimeMillis();
                        List<MachineIdLeaseInfo> infos = new ArrayList<>();
                        for (long id = range.min(); id <= range.max(); id++) {
                            Row row = rows.get(id);
                            infos.add(row == null ? MachineIdLeaseInfo.free(id) : new MachineIdLeaseInfo(id,
                                    row.expiry() > now ? MachineIdLeaseInfo.State.LIVE
                                            : MachineIdLeaseInfo.State.EXPIRED, "a", Instant.ofEpochMilli(row.expiry()),
                                    Instant.ofEpochMilli(row.highWater()), row.generation(), heldHere.test(id)));
                        }
                        return infos;
                    }
                }

                @Override
                public Released release(long machineId, boolean force) {
                    throw new UnsupportedOperationException("these tests end no lease by hand");
                }
            };
        }

        @Override
        public Duration closeTimeout() {
            return Duration.ofMillis(500);
        }
    }

    private LeasedMachineIdProvider<Long> leased() {
        LeaseSettings settings = new LeaseSettings("a", Duration.ofMillis(LEASE), Duration.ofMillis(RENEWAL), clock,
                (name, period, tick) -> {
                    ticks.add(tick);
                    return () -> ticks.remove(tick);
                }, "", LeaseSettings.Limits.heartbeat(255)).validate();
        return new LeasedMachineIdProvider<>(table, settings, "Test", LOG);
    }

    private EmbeddedIdService service(MachineIdProvider provider) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).timeSource(clock)
                .machineIdRange(0, 1015).machineIdProvider(provider).machineIdFallback(FALLBACK)
                .machineIdFallbackCheckInterval(Duration.ofHours(0).plusSeconds(60))
                .timestampStoreDirectory(marks).build();
        toClose.add(service);
        return service;
    }

    private static FallbackMachineIdProvider fallbackOf(EmbeddedIdService service) throws Exception {
        var field = EmbeddedIdService.class.getDeclaredField("machineIdProvider");
        field.setAccessible(true);
        return (FallbackMachineIdProvider) field.get(service);
    }

    private void renewAll() {
        new ArrayList<>(ticks).forEach(Runnable::run);
    }

    @Test
    void aNodeStartsOnTheFallbackWhileTheStoreIsDownAndMovesToALeaseOnceItAnswers() throws Exception {
        table.down = true;
        EmbeddedIdService service = service(leased());
        FallbackMachineIdProvider provider = fallbackOf(service);
        assertThat(service.machineId()).isEqualTo(FALLBACK);
        assertThat(service.onFallback()).isTrue();
        List<Long> ids = new ArrayList<>();
        Arrays.stream(service.genIds(2_000)).forEach(ids::add);
        assertThat(service.fallbackIdsIssued()).isEqualTo(2_000);

        table.down = false;
        clock.advance(Duration.ofMillis(5));
        provider.checkNow(); // claims
        provider.checkNow(); // switches
        Arrays.stream(service.genIds(2_000)).forEach(ids::add);
        assertThat(service.machineId()).isZero();
        assertThat(service.onFallback()).isFalse();
        assertThat(service.fallbackIdsIssued()).isEqualTo(2_000);
        assertThat(ids).doesNotHaveDuplicates();
    }

    @Test
    void aLeaseThatRunsOutMovesTheNodeToTheFallbackAndARenewalBackWithoutRepeatingAnId() throws Exception {
        EmbeddedIdService service = service(leased());
        FallbackMachineIdProvider provider = fallbackOf(service);
        assertThat(service.machineId()).isZero();
        List<Long> ids = new ArrayList<>();
        Instant previousSpell = Instant.MIN;
        for (int round = 0; round < 3; round++) {
            Arrays.stream(service.genIds(1_500)).forEach(ids::add);
            assertThat(service.onFallbackSince()).isEmpty();
            table.down = true;
            clock.advance(Duration.ofMillis(LEASE + 1)); // past the lease, unrenewed
            Instant lost = clock.now();
            renewAll();
            // The lost lease refuses, the call is made again whole on the fallback.
            Arrays.stream(service.genIds(1_500)).forEach(ids::add);
            assertThat(service.machineId()).isEqualTo(FALLBACK);
            Instant spell = service.onFallbackSince().orElseThrow();
            assertThat(spell).as("each spell on the fallback has its own start").isAfter(previousSpell)
                    .isBetween(lost, clock.now());
            previousSpell = spell;
            table.down = false;
            renewAll(); // the store answers again: the lease is held again
            provider.checkNow();
            Arrays.stream(service.genIds(1_500)).forEach(ids::add);
            assertThat(service.machineId()).isZero();
            assertThat(service.onFallbackSince()).isEmpty();
            // No time passes on the clock: the same block again must start after its own last unit.
            Arrays.stream(service.genIds(10)).forEach(ids::add);
        }
        assertThat(ids).doesNotHaveDuplicates();
        assertThat(service.fallbackIdsIssued()).isEqualTo(4_500);
    }

    /**
     * Found by the chaos harness ({@code LeaseChaosHarness --fallback}, Redis): a call that a lost block refused is made
     * again on the newest block, and that block can be left too before the call is through (the store answered again
     * and the regain thread moved the node back, while the call was on the fallback). Here the move happens while the
     * call reads the clock. The call follows to the newest block rather than failing with the refusal of a block the
     * node has already left (or, when the move closed that block's generator first, with "was closed ... Build a new
     * one", which the harness saw from a service that was never closed).
     */
    @Test
    void aCallWhoseRetryBlockIsLeftDuringTheCallFollowsToTheNewestBlock() throws Exception {
        AtomicReference<Runnable> duringTheNextRead = new AtomicReference<>();
        AtomicReference<EmbeddedIdService> built = new AtomicReference<>();
        TimeSource hooked = new TimeSource() {
            @Override
            public long currentTimeMillis() {
                EmbeddedIdService service = built.get();
                // Only once the call is on the fallback's generator: not during a move, which holds the node's lock.
                if (service != null && service.onFallback()) {
                    Runnable hook = duringTheNextRead.getAndSet(null);
                    if (hook != null) {
                        hook.run();
                    }
                }
                return clock.currentTimeMillis();
            }

            @Override
            public long nanoTime() {
                return clock.nanoTime();
            }

            @Override
            public boolean sleepUntil(long epochMillis, long maxNanos) {
                return clock.sleepUntil(epochMillis, maxNanos);
            }
        };
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).timeSource(hooked)
                .machineIdRange(0, 1015).machineIdProvider(leased()).machineIdFallback(FALLBACK)
                .machineIdFallbackCheckInterval(Duration.ofSeconds(60)).timestampStoreDirectory(marks).build();
        toClose.add(service);
        built.set(service);
        FallbackMachineIdProvider provider = fallbackOf(service);
        List<Long> ids = new ArrayList<>();
        Arrays.stream(service.genIds(1_000)).forEach(ids::add);

        table.down = true;
        clock.advance(Duration.ofMillis(LEASE + 1)); // past the lease, unrenewed
        renewAll();
        duringTheNextRead.set(() -> {
            table.down = false;
            renewAll(); // the lease is held again
            provider.checkNow(); // and the node moves back to it, leaving the fallback
        });
        long id = service.genId(); // refused by machine ID 0, made again on the fallback, which is left meanwhile
        ids.add(id);
        assertThat(duringTheNextRead.get()).as("the move back ran during the call").isNull();
        assertThat(service.expId(id).machine()).isZero();
        Arrays.stream(service.genIds(1_000)).forEach(ids::add);
        assertThat(ids).doesNotHaveDuplicates();
    }

    @Test
    void aFallbackInsideTheLeasedRangeIsRefusedNamingTheSettingAndWhatIsAllowed() {
        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").machineIdRange(924, 1023)
                .genMethod(io.vesta.GenMethod.REST).machineIdProvider(leased()).machineIdFallback(1016L)
                .timestampStoreDirectory(marks).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("vesta.machine-id.fallback.value").hasMessageContaining("1016")
                .hasMessageContaining("[924, 1023]");
    }

    @Test
    void aMisalignedOrOutOfSpaceFallbackIsRefused() {
        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").machineIdRange(0, 1015)
                .machineIdBlockSize(8).machineIdProvider(leased()).machineIdFallback(1017L)
                .timestampStoreDirectory(marks).build())
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("vesta.machine-id.fallback.value")
                .hasMessageContaining("aligned");
        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").machineIdRange(0, 1015)
                .machineIdProvider(leased()).machineIdFallback(1024L).timestampStoreDirectory(marks).build())
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("[0, 1023]");
    }

    @Test
    void aFallbackWithoutATimeStoreIsRefused() {
        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").machineIdRange(0, 1015)
                .machineIdProvider(leased()).machineIdFallback(1016L).build())
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("time store");
    }

    /**
     * A provider whose machine ID is fixed (an IP list here) is never unavailable, so a fallback beside it would never be
     * used: the generator refuses it, as the starter does, rather than build with a setting that does nothing.
     */
    @Test
    void aFallbackBesideAProviderWithAFixedMachineIdIsRefusedNamingTheProvider() throws Exception {
        java.net.InetAddress host = java.net.InetAddress.getByAddress(new byte[] { 10, 0, 0, 7 });
        MachineIdProvider ipList = new IpListMachineIdProvider(List.of("10.0.0.7"), () -> List.of(host),
                "vesta.machine-id.ip-list");
        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").machineIdRange(0, 1015)
                .machineIdProvider(ipList).machineIdFallback(1016L).timestampStoreDirectory(marks).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("vesta.machine-id.fallback.value=1016 is used only with a machine ID leased"
                        + " from a store: the machine ID of " + ipList.describe() + " is never unavailable")
                .hasMessageContaining("unset, or set with a provider that leases from a store");
    }
}
