package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.machine.LeaseChangeRefusedException;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.StoreMark;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link RedisMachineIdProvider} promises, on the Redis named by {@value RedisTestSupport#URL}: the race tests of
 * the database strategy, the fencing token, the operator's leases, and what a claim does after Redis lost data. Every
 * test works in a hash key of its own and deletes it afterwards.
 */
class RedisMachineIdProviderTests {

    static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.WARNING);
    }

    private RedisURI uri;
    private RedisClient client;
    private StatefulRedisConnection<String, String> admin;
    private String key;
    private String runId;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void connect() {
        uri = RedisTestSupport.sharedUri();
        client = RedisTestSupport.client(uri);
        admin = client.connect();
        key = "vesta-test:machine-ids:" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        runId = RedisTestSupport.instance(admin);
        // The steady state: the hash has been claimed on this server instance before and nothing was lost. (A fresh key
        // on a server started less than a lease ago must wait; the tests of that say so.)
        admin.sync().hset(key, "store", runId + "|0");
    }

    @AfterEach
    void disconnect() throws Exception {
        for (AutoCloseable closeable : toClose) {
            closeable.close();
        }
        if (admin != null) {
            admin.sync().del(key);
            admin.close();
            client.shutdown();
        }
    }

    RedisMachineIdProvider.Builder builder(String owner, TimeSource clock) {
        return RedisMachineIdProvider.builder(client, uri).key(key).owner(owner).timeSource(clock)
                // Longer than any test runs: the tests drive heartbeats by hand unless they say otherwise.
                .lease(Duration.ofSeconds(60)).heartbeat(Duration.ofSeconds(20));
    }

    RedisMachineIdProvider provider(String owner, TimeSource clock) {
        RedisMachineIdProvider provider = builder(owner, clock).build();
        toClose.add(provider);
        return provider;
    }

    /**
     * A provider that runs {@code beforeTakeOver} once, at its first claim, between the read that found the entries
     * takeable and the script that takes them.
     */
    RedisMachineIdProvider provider(String owner, TimeSource clock, Runnable beforeTakeOver) {
        Runnable hook = once(beforeTakeOver);
        RedisMachineIdProvider provider = builder(owner, clock).build(store -> new RedisLeaseStore(store) {
            @Override
            String claim(Snapshot snapshot, StoreMark mark, List<Entry> read, List<Entry> written) {
                hook.run();
                return super.claim(snapshot, mark, read, written);
            }
        });
        toClose.add(provider);
        return provider;
    }

    EmbeddedIdService service(RedisMachineIdProvider provider, TimeSource clock) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY)
                .machineIdProvider(provider).timeSource(clock).build();
        toClose.add(service);
        return service;
    }

    /** A field of machine ID {@code machineId}'s entry: 0 generation, 1 lease expiry, 2 high water, 3 token, 4 owner. */
    String entryPart(long machineId, int part) {
        String value = admin.sync().hget(key, Long.toString(machineId));
        assertThat(value).as("entry of machine ID %d", machineId).isNotNull();
        return value.split("\\|", 5)[part];
    }

    long entryValue(long machineId, int part) {
        return Long.parseLong(entryPart(machineId, part));
    }

    static Set<Long> repeated(long[] a, long[] b) {
        Set<Long> ofA = Arrays.stream(a).boxed().collect(Collectors.toSet());
        return Arrays.stream(b).filter(ofA::contains).boxed().collect(Collectors.toSet());
    }

    static Runnable once(Runnable action) {
        AtomicBoolean done = new AtomicBoolean();
        return () -> {
            if (done.compareAndSet(false, true)) {
                action.run();
            }
        };
    }

    @Test
    void twoHundredConcurrentAcquirersGetDistinctIds() throws Exception {
        int acquirers = 200;
        List<RedisMachineIdProvider> providers = new ArrayList<>();
        for (int i = 0; i < acquirers; i++) {
            providers.add(provider("node-" + i, TimeSource.system()));
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(50);
        try {
            List<Future<Long>> ids = new ArrayList<>();
            for (RedisMachineIdProvider provider : providers) {
                ids.add(threads.submit(() -> {
                    start.await();
                    return provider.acquire(MachineIdRange.EMBEDDED);
                }));
            }
            start.countDown();
            Set<Long> distinct = ConcurrentHashMap.newKeySet();
            for (Future<Long> id : ids) {
                distinct.add(id.get(60, TimeUnit.SECONDS));
            }
            assertThat(distinct).hasSize(acquirers)
                    .containsExactlyInAnyOrderElementsOf(LongStream.range(0, acquirers).boxed().toList());
            // Each holds its entry under a token of its own.
            Set<String> tokens = LongStream.range(0, acquirers).mapToObj(id -> entryPart(id, 3)).collect(Collectors.toSet());
            assertThat(tokens).hasSize(acquirers);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aRestartGetsTheSameIdBackAfterACleanCloseAndAfterACrash() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RedisMachineIdProvider first = provider("node-a", clock);
        EmbeddedIdService a = service(first, clock);
        long other = provider("node-b", clock).acquire(MachineIdRange.EMBEDDED);
        long lastBeforeClose = a.genId();
        a.close();

        clock.advance(Duration.ofMillis(5));
        RedisMachineIdProvider restarted = provider("node-a", clock);
        EmbeddedIdService again = service(restarted, clock);

        assertThat(again.machineId()).isEqualTo(a.machineId()).isNotEqualTo(other);
        assertThat(restarted.notBefore()).hasValue(T0.toEpochMilli() + 1);
        assertThat(again.genId()).isGreaterThan(lastBeforeClose);
        assertThat(restarted.describe()).isEqualTo("redis (hash " + key + " at " + uri.getHost() + ":" + uri.getPort()
                + ", owner 'node-a')");

        // A crash leaves the lease running: the restart gets the ID back but starts after the old lease.
        RedisMachineIdProvider afterCrash = provider("node-a", clock);
        assertThat(afterCrash.acquire(MachineIdRange.EMBEDDED)).isEqualTo(a.machineId());
        assertThat(afterCrash.notBefore()).hasValue(clock.now().plusSeconds(60).toEpochMilli());
        // ...and the crashed run can no longer renew: the entry carries the restart's token now.
        assertThat(restarted.heartbeat()).isFalse();
        assertThat(restarted.lease().lostReason()).contains("taken over by owner 'node-a'");
    }

    @Test
    void anExpiredLeaseIsTakenOverAndTheNewOwnersIdsComeAfterTheOldOwnersLast() {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        RedisMachineIdProvider providerA = provider("node-a", clockA);
        EmbeddedIdService a = service(providerA, clockA);
        a.genIds(100);
        long highWater = entryValue(a.machineId(), 2);
        assertThat(highWater).isEqualTo(T0.plusSeconds(60).toEpochMilli());

        // A misses its heartbeats (cut off from Redis); B's clock runs 30 s ahead of A's, so B sees A's lease end
        // while A, by its own clock, still holds it for another 30 s.
        clockA.advance(Duration.ofSeconds(30));
        ManualTimeSource clockB = new ManualTimeSource(T0.plusSeconds(60));
        RedisMachineIdProvider providerB = provider("node-b", clockB);
        EmbeddedIdService b = service(providerB, clockB);

        assertThat(b.machineId()).isEqualTo(a.machineId());
        assertThat(providerB.notBefore()).hasValue(highWater);
        assertThat(b.machineIdSource()).contains("taken over from 'node-a'");
        long lastOfA = a.genIds(100)[99];
        clockA.advance(Duration.ofMillis(29_999));
        lastOfA = Math.max(lastOfA, a.genId());
        long firstOfB = b.genId();
        assertThat(firstOfB).isGreaterThan(lastOfA);
        assertThat(b.expId(firstOfB).time()).isGreaterThan(a.expId(lastOfA).time());

        // A reaches Redis again: the entry carries B's token, so A never issues under it again.
        assertThat(providerA.heartbeat()).isFalse();
        assertThatThrownBy(a::genId).isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageContaining("is no longer this node's (owner 'node-a')")
                .hasMessageContaining("taken over by owner 'node-b'");
        assertThat(providerB.heartbeat()).isTrue();
        assertThat(entryValue(b.machineId(), 0)).isEqualTo(2);
    }

    @Test
    void aFullRangeIsRefusedNamingTheKeyTheRangeAndHowManyEntriesHoldIt() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        MachineIdRange range = new MachineIdRange(5, 7);
        for (String owner : List.of("node-a", "node-b", "node-c")) {
            provider(owner, clock).acquire(range);
        }
        assertThatThrownBy(() -> provider("node-d", clock).acquire(range))
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessage("No machine ID is free in range 5-7 of Redis hash " + key + " at " + uri.getHost() + ":"
                        + uri.getPort() + ": 3 entries hold a live lease on all 3 IDs of the range (the first lease ends at"
                        + " 2026-06-01T12:01:00Z). Stop a node, widen the range, or wait for a lease to end.");
        clock.advance(Duration.ofSeconds(60));
        assertThat(provider("node-d", clock).acquire(range)).isEqualTo(5);
    }

    @Test
    void closeReleasesTheEntrySoAnotherNodeTakesItAtOnce() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        EmbeddedIdService a = service(provider("node-a", clock), clock);
        long last = a.genId();
        a.close();
        assertThat(a.machineIdLease().lostReason()).isEqualTo("the machine-ID provider was closed");
        assertThat(entryValue(a.machineId(), 1)).isEqualTo(T0.toEpochMilli());
        assertThat(entryValue(a.machineId(), 2)).isEqualTo(T0.toEpochMilli() + 1);

        EmbeddedIdService b = service(provider("node-b", clock), clock);
        assertThat(b.machineId()).isEqualTo(a.machineId());
        assertThat(b.genId()).isGreaterThan(last);
    }

    @Test
    void aRenewalBetweenATakeoversReadAndItsWriteKeepsTheEntryWithItsHolderAndNoIdRepeats() {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        RedisMachineIdProvider providerA = provider("node-a", clockA);
        EmbeddedIdService a = service(providerA, clockA);
        a.genId();
        clockA.advance(Duration.ofSeconds(50));
        // B's clock is 10 s ahead: B finds A's lease over and reads the entry; before B's script runs, A's late
        // heartbeat lands and pushes lease and high water to T0 + 110 s.
        ManualTimeSource clockB = new ManualTimeSource(T0.plusSeconds(60));
        AtomicReference<Boolean> renewedInBetween = new AtomicReference<>();
        RedisMachineIdProvider providerB = provider("node-b", clockB,
                () -> renewedInBetween.set(providerA.heartbeat()));
        EmbeddedIdService b = service(providerB, clockB);
        assertThat(renewedInBetween.get()).as("A's heartbeat landed between B's read and B's write").isTrue();

        Instant same = T0.plusSeconds(60).plusMillis(1);
        clockA.set(same);
        clockB.set(same);
        long[] idsOfA = a.genIds(1000);
        long[] idsOfB = b.genIds(1000);
        Set<Long> repeated = repeated(idsOfA, idsOfB);
        assertThat(repeated).as("%d of B's IDs repeat A's", repeated.size()).isEmpty();
        assertThat(b.machineId()).isNotEqualTo(a.machineId());
        assertThat(b.machineIdSource()).doesNotContain("taken over");
        assertThat(entryValue(a.machineId(), 0)).isEqualTo(1);
        assertThat(entryValue(a.machineId(), 2)).isEqualTo(T0.plusSeconds(110).toEpochMilli());
        assertThat(providerA.heartbeat()).as("A still holds its entry").isTrue();
    }

    @Test
    void aRestartThatReadsItsEntryJustBeforeThePreviousRunRenewsStartsAfterTheRenewedHighWater() {
        ManualTimeSource clockA = new ManualTimeSource(T0);
        RedisMachineIdProvider providerA = provider("node-a", clockA);
        EmbeddedIdService a = service(providerA, clockA);
        a.genId();
        clockA.advance(Duration.ofSeconds(10));
        ManualTimeSource clockR = new ManualTimeSource(T0.plusSeconds(68));
        AtomicReference<Boolean> renewedInBetween = new AtomicReference<>();
        RedisMachineIdProvider restarted = provider("node-a", clockR,
                () -> renewedInBetween.set(providerA.heartbeat()));
        EmbeddedIdService r = service(restarted, clockR);
        assertThat(renewedInBetween.get()).isTrue();

        clockA.set(T0.plusSeconds(68));
        long[] idsOfOldRun = a.genIds(1000);
        long[] idsOfRestart = r.genIds(1000);
        assertThat(repeated(idsOfOldRun, idsOfRestart)).isEmpty();
        assertThat(r.machineId()).isEqualTo(a.machineId());
        assertThat(restarted.notBefore()).hasValue(T0.plusSeconds(70).toEpochMilli());
        assertThat(providerA.heartbeat()).isFalse();
        assertThat(providerA.lease().lostReason()).contains("taken over by owner 'node-a'");
    }

    @Test
    void aLateRenewalAfterATakeoverFailsOnTheFencingTokenEvenWithTheSameGeneration() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RedisMachineIdProvider providerA = provider("node-a", clock);
        EmbeddedIdService a = service(providerA, clock);
        // Someone rewrites the entry with A's generation, owner and times but another token (as a takeover's script
        // could after A's entry vanished and was claimed again): A's renewal must not take it back.
        String entry = admin.sync().hget(key, Long.toString(a.machineId()));
        String[] parts = entry.split("\\|", 5);
        admin.sync().hset(key, Long.toString(a.machineId()), parts[0] + "|" + parts[1] + "|" + parts[2] + "|other-token|" + parts[4]);
        assertThat(providerA.heartbeat()).isFalse();
        assertThatThrownBy(a::genId).isInstanceOf(MachineIdUnavailableException.class);
        assertThat(entryPart(a.machineId(), 3)).isEqualTo("other-token");
    }

    @Test
    void twoHundredBlockAcquirersRacingEachGetAWholeBlockOrNone() throws Exception {
        int acquirers = 200;
        int blockSize = 4;
        MachineIdRange range = new MachineIdRange(0, 511);
        List<RedisMachineIdProvider> providers = new ArrayList<>();
        for (int i = 0; i < acquirers; i++) {
            providers.add(provider("node-" + i, TimeSource.system()));
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(50);
        try {
            List<Future<Long>> firsts = new ArrayList<>();
            for (RedisMachineIdProvider provider : providers) {
                firsts.add(threads.submit(() -> {
                    start.await();
                    try {
                        return provider.acquire(range, blockSize);
                    } catch (MachineIdUnavailableException e) {
                        return -1L;
                    }
                }));
            }
            start.countDown();
            List<Long> blocks = new ArrayList<>();
            for (Future<Long> first : firsts) {
                long value = first.get(60, TimeUnit.SECONDS);
                if (value >= 0) {
                    blocks.add(value);
                }
            }
            // 128 blocks of 4 in the range: 128 acquirers get one each, the rest are refused.
            assertThat(blocks).hasSize(128).doesNotHaveDuplicates().allMatch(first -> first % blockSize == 0);
            for (long first : blocks) {
                Set<String> tokens = LongStream.range(first, first + blockSize).mapToObj(id -> entryPart(id, 3))
                        .collect(Collectors.toSet());
                assertThat(tokens).as("the block at %d is held under one token", first).hasSize(1);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aBlockIsRenewedAndReleasedWholeAndOneEntryTakenAwayEndsTheLeaseOnAll() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RedisMachineIdProvider provider = provider("node-a", clock);
        long first = provider.acquire(MachineIdRange.EMBEDDED, 4);
        clock.advance(Duration.ofSeconds(10));
        assertThat(provider.heartbeat()).isTrue();
        for (long id = first; id < first + 4; id++) {
            assertThat(entryValue(id, 1)).isEqualTo(T0.plusSeconds(70).toEpochMilli());
        }
        admin.sync().hdel(key, Long.toString(first + 2));
        assertThat(provider.heartbeat()).isFalse();
        assertThat(provider.lease().lostReason()).contains("the entry of machine ID " + (first + 2) + " of its block")
                .contains("is gone");
        // Nothing was written by the failed renewal: the other three keep the last expiry.
        assertThat(entryValue(first, 1)).isEqualTo(T0.plusSeconds(70).toEpochMilli());
    }

    @Test
    void theLeaseListShowsEveryMachineIdOfTheRangeWithItsHolder() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RedisMachineIdProvider a = provider("node-a", clock);
        a.acquire(new MachineIdRange(0, 3));
        RedisMachineIdProvider b = provider("node-b", clock);
        b.acquire(new MachineIdRange(0, 3));
        b.close();

        List<MachineIdLeaseInfo> leases = a.leases().orElseThrow().list(new MachineIdRange(0, 3));
        assertThat(leases).extracting(MachineIdLeaseInfo::machineId).containsExactly(0L, 1L, 2L, 3L);
        assertThat(leases.get(0)).isEqualTo(new MachineIdLeaseInfo(0, MachineIdLeaseInfo.State.LIVE, "node-a",
                T0.plusSeconds(60), T0.plusSeconds(60), 1, true));
        assertThat(leases.get(1).state()).isEqualTo(MachineIdLeaseInfo.State.EXPIRED);
        assertThat(leases.get(1).owner()).isEqualTo("node-b");
        assertThat(leases.get(1).self()).isFalse();
        assertThat(leases.get(2)).isEqualTo(MachineIdLeaseInfo.free(2));
        assertThat(a.leases().orElseThrow().describe()).isEqualTo("redis hash " + key + " at " + uri.getHost() + ":" + uri.getPort());
    }

    @Test
    void aLiveLeaseIsEndedOnlyByForceAndTheNextHolderStartsAfterEverythingTheFormerCouldIssue() {
        ManualTimeSource clock = new ManualTimeSource(T0);
        RedisMachineIdProvider holder = provider("node-a", clock);
        EmbeddedIdService a = service(holder, clock);
        long lastOfA = a.genId();
        RedisMachineIdProvider operator = provider("operator", clock);
        operator.acquire(new MachineIdRange(100, 100));
        MachineIdLeases leases = operator.leases().orElseThrow();

        assertThatThrownBy(() -> leases.release(a.machineId(), false)).isInstanceOf(LeaseChangeRefusedException.class)
                .hasMessageContaining("is live until 2026-06-01T12:01:00Z");
        assertThatThrownBy(() -> leases.release(100, true)).isInstanceOf(LeaseChangeRefusedException.class)
                .hasMessageContaining("is held by this process");
        assertThatThrownBy(() -> leases.release(7, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has no lease on machine ID 7");

        MachineIdLeases.Released released = leases.release(a.machineId(), true);
        assertThat(released.ended()).isTrue();
        assertThat(released.after().state()).isEqualTo(MachineIdLeaseInfo.State.EXPIRED);
        assertThat(released.after().generation()).isEqualTo(2);
        assertThat(released.after().highWater()).isEqualTo(T0.plusSeconds(60));
        // The holder stops at its next renewal; until then it issues below the high water the next holder starts after.
        assertThat(holder.heartbeat()).isFalse();
        assertThat(holder.lease().lostReason()).contains("was ended by another process");
        RedisMachineIdProvider next = provider("node-c", clock);
        EmbeddedIdService c = service(next, clock);
        assertThat(c.machineId()).isEqualTo(a.machineId());
        assertThat(next.notBefore()).hasValue(T0.plusSeconds(60).toEpochMilli());
        clock.advance(Duration.ofSeconds(61));
        assertThat(next.heartbeat()).isTrue();
        assertThat(c.genId()).isGreaterThan(lastOfA);

        c.close();
        MachineIdLeases.Released again = leases.release(c.machineId(), false);
        assertThat(again.ended()).isFalse();
        assertThat(again.detail()).contains("any node may take it");
    }

    /**
     * An operator's end leaves the entry expired at the operator's clock reading but keeps the former holder's high
     * water, which lies later when that holder's clock runs ahead. The next holder starts after it, and so must every
     * holder after that, whatever the next holder's own writes say: the former holder issues up to it until its next
     * renewal (or, cut off from Redis, to the end of its lease).
     */
    @Test
    void theHighWaterAHolderInheritedOutlivesItsOwnClaimAndRenewalsWhenClocksDiffer() {
        ManualTimeSource clockA = new ManualTimeSource(T0.plusSeconds(10));
        RedisMachineIdProvider holder = provider("node-a", clockA);
        EmbeddedIdService a = service(holder, clockA);
        a.genId();
        long heldUntilA = holder.lease().heldUntil();
        assertThat(heldUntilA).isEqualTo(T0.plusSeconds(70).toEpochMilli());
        ManualTimeSource clock = new ManualTimeSource(T0);
        RedisMachineIdProvider operator = provider("operator", clock);
        operator.acquire(new MachineIdRange(100, 100));
        assertThat(operator.leases().orElseThrow().release(a.machineId(), true).ended()).isTrue();

        // B, its clock 10 s behind A's, takes the ended entry, renews once and dies without releasing it.
        RedisMachineIdProvider b = provider("node-b", clock);
        assertThat(b.acquire(MachineIdRange.EMBEDDED)).isEqualTo(a.machineId());
        assertThat(b.notBefore()).hasValue(heldUntilA);
        clock.advance(Duration.ofSeconds(1));
        assertThat(b.heartbeat()).isTrue();
        assertThat(Long.parseLong(entryPart(a.machineId(), 2))).as("the high water after B's claim and renewal")
                .isGreaterThanOrEqualTo(heldUntilA);

        // C takes it once B's lease has ended, while A (cut off, say) may still issue below heldUntilA.
        clock.set(T0.plusSeconds(62));
        RedisMachineIdProvider c = provider("node-c", clock);
        assertThat(c.acquire(MachineIdRange.EMBEDDED)).isEqualTo(a.machineId());
        assertThat(c.notBefore().orElseThrow()).as("C starts after everything A could issue").isGreaterThanOrEqualTo(heldUntilA);
    }

    @Test
    void aClaimAfterTheServerChangedWaitsOutEveryLeaseThatMayHaveBeenLost() {
        // The store mark names another server instance: Redis restarted or failed over since the last claim, and may
        // have lost acknowledged renewals.
        admin.sync().hset(key, "store", "0123456789abcdef0123456789abcdef01234567|0");
        ManualTimeSource clock = new ManualTimeSource(T0);
        RedisMachineIdProvider provider = builder("node-a", clock).maxClockSkew(Duration.ofSeconds(2)).build();
        toClose.add(provider);
        assertThat(provider.acquire(MachineIdRange.EMBEDDED)).isZero();
        assertThat(provider.notBefore()).hasValue(T0.plusSeconds(62).toEpochMilli());
        assertThat(admin.sync().hget(key, "store")).isEqualTo(runId + "|" + T0.plusSeconds(62).toEpochMilli());

        // Later claims on the same instance honour the mark until it has passed.
        RedisMachineIdProvider second = provider("node-b", clock);
        assertThat(second.acquire(MachineIdRange.EMBEDDED)).isEqualTo(1);
        assertThat(second.notBefore()).hasValue(T0.plusSeconds(62).toEpochMilli());
        clock.advance(Duration.ofSeconds(63));
        assertThat(provider.heartbeat()).isTrue();
        assertThat(second.heartbeat()).isTrue();
        RedisMachineIdProvider third = provider("node-c", clock);
        assertThat(third.acquire(MachineIdRange.EMBEDDED)).isEqualTo(2);
        assertThat(third.notBefore()).isEmpty();
    }

    @Test
    void aNewKeyWaitsOnlyForWhatTheServersUptimeDoesNotCover() {
        admin.sync().del(key);
        long uptimeBefore = uptimeSeconds();
        ManualTimeSource clock = new ManualTimeSource(T0);
        RedisMachineIdProvider provider = provider("node-a", clock);
        provider.acquire(MachineIdRange.EMBEDDED);
        long uptimeAfter = uptimeSeconds();
        long wait = 61_000;
        // Redis's whole-second uptime may run almost a second ahead of the time that passed: one second less counts.
        if ((uptimeBefore - 1) * 1000 >= wait) {
            assertThat(provider.notBefore()).as("a server up for %d s has lost nothing a live lease needs", uptimeBefore).isEmpty();
        } else {
            assertThat(provider.notBefore().getAsLong()).isBetween(
                    T0.toEpochMilli() + Math.max(1, wait - Math.max(0, uptimeAfter - 1) * 1000),
                    T0.toEpochMilli() + wait - Math.max(0, uptimeBefore - 1) * 1000);
        }
    }

    private long uptimeSeconds() {
        for (String line : admin.sync().info("server").split("\r?\n")) {
            if (line.startsWith("uptime_in_seconds:")) {
                return Long.parseLong(line.substring("uptime_in_seconds:".length()).trim());
            }
        }
        throw new AssertionError("no uptime");
    }

    @Test
    void aForeignValueInTheHashIsNamedInTheError() {
        admin.sync().hset(key, "3", "not a lease");
        assertThatThrownBy(() -> provider("node-a", TimeSource.system()).acquire(MachineIdRange.EMBEDDED))
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageContaining("Field '3' of hash " + key)
                .hasMessageContaining("holds 'not a lease'");
    }

    @Test
    void theBackgroundHeartbeatRenewsTheLease() throws Exception {
        RedisMachineIdProvider provider = builder("node-a", TimeSource.system())
                .lease(Duration.ofSeconds(1)).heartbeat(Duration.ofMillis(100)).build();
        toClose.add(provider);
        EmbeddedIdService service = service(provider, TimeSource.system());
        long firstExpiry = service.machineIdLease().heldUntil();
        Thread.sleep(1_300);
        assertThat(service.genId()).isPositive();
        assertThat(service.machineIdLease().heldUntil()).isGreaterThan(firstExpiry);
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .contains("vesta-machine-id-heartbeat-" + key + "-" + service.machineId());
    }
}
