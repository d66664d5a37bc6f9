package io.vesta.test.lease;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The guarantees of a leased machine-ID store, proven against a real store by a test that extends this class: it
 * builds providers on the store ({@link #provider(Node)}) and makes the store's faults happen ({@link #stall()},
 * {@link #loseReplies()}, {@link #restartEmpty()}, {@link #snapshot()}). A fault the store cannot have by its own
 * design is reported as not supported, with why ({@link #notSupported}); every other fault must be made to happen.
 *
 * <p>The tests work through the public API only ({@link MachineIdProvider}, its lease, grant, mark and leases), and
 * prove "no ID twice" by issuing IDs with {@link EmbeddedIdService} on the providers: every ID of a test goes into one
 * set, and a second copy of any fails the test with the owners that issued it. Leases are read by manual clocks
 * ({@link Node#timeSource()}) that the tests move; the renewals run on the providers' own timers, in real time, so a
 * test chooses per node between a renewal interval longer than the test ({@link #INERT}: the node behaves as one whose
 * renewals have stopped) and a short one ({@link #fastRenewal()}: it renews all the time). Every test is bounded in
 * time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class MachineIdLeaseContract {

    /** Where the manual clocks start. */
    protected static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");
    /** The lease of every node: long, so that only the manual clock ends it. */
    protected static final Duration LEASE = Duration.ofSeconds(60);
    /** A renewal interval no test outlasts: a node built with it never renews while the test runs. */
    protected static final Duration INERT = Duration.ofSeconds(20);

    /**
     * One node of a test.
     *
     * @param owner      who the node is, stable across its restarts
     * @param lease      how long its block stays its own after a renewal the store confirmed
     * @param renewal    how often it renews, in real time
     * @param timeSource the clock it reads and writes lease ends by
     */
    public record Node(String owner, Duration lease, Duration renewal, TimeSource timeSource) {
    }

    /** A state of the store taken by {@link #snapshot()}. */
    @FunctionalInterface
    public interface Snapshot {
        /** Puts the store back as it was when the snapshot was taken, as a restart from that backup would. */
        void rollBack() throws Exception;
    }

    private final List<AutoCloseable> toClose = Collections.synchronizedList(new ArrayList<>());
    private final Map<Long, String> issued = new ConcurrentHashMap<>();

    // ---------------------------------------------------------------- what a store's test supplies

    /**
     * A provider of {@code node} on the store under test: the same store (table, key, namespace) for every node of
     * one test, a fresh one for each test. The contract closes it.
     */
    protected abstract MachineIdProvider provider(Node node) throws Exception;

    /** Prepares a fresh store for one test; runs before each test. */
    protected void openStore() throws Exception {
    }

    /** Drops what {@link #openStore()} made; runs after each test, once every provider of it was closed. */
    protected void closeStore() throws Exception {
    }

    /** A renewal interval short enough that the node renews all the time: 20 ms unless the store allows no less. */
    protected Duration fastRenewal() {
        return Duration.ofMillis(20);
    }

    /**
     * How far apart the nodes' clocks may be, as the store documents it: the bound within which its leases keep
     * their guarantees without a node being refused or restarted.
     */
    protected abstract Duration documentedClockBound();

    /**
     * Makes the store answer nothing (every call hangs, neither failing nor landing) until the returned handle is
     * closed, as a store paused or cut off by a partition does.
     */
    protected abstract AutoCloseable stall() throws Exception;

    /**
     * Until the returned handle is closed, the store applies every write and its replies are lost (the connection
     * breaks after the write committed).
     */
    protected abstract AutoCloseable loseReplies() throws Exception;

    /** Restarts the store with nothing in it, as a store without persistence does. */
    protected abstract void restartEmpty() throws Exception;

    /** Takes a snapshot of the store that {@link Snapshot#rollBack()} restores, losing every write since. */
    protected abstract Snapshot snapshot() throws Exception;

    /**
     * Whether the store keeps an owner's block its own after the owner closed or its lease ran out, as ZooKeeper's
     * Leaf-style nodes do: another owner then takes the block only once its holder went without a renewal for a
     * silence the store measures by its own clock (not by the nodes' clocks, which the tests move), or once an
     * operator ended the lease ({@link MachineIdLeases#release}). {@code false} by default: another owner takes a block
     * as soon as it was released, or its lease ended by the taker's clock.
     *
     * <p>When {@code true}, each test that hands a block to another owner first proves that another owner is refused
     * it, and then ends the lease as an operator does, by force: the taker must still start after the former holder's
     * high water, and the former holder, if it has not heard, still issues up to its lease end. A store that says so
     * never lets {@link #renewalRacingATakeoverNeverLetsTwoHoldAtOnce} take a block over (the holder's silence lasts
     * milliseconds): that test then proves only that renewals and refused claims never let two nodes hold at once.
     */
    protected boolean blocksStayWithTheirOwner() {
        return false;
    }

    /**
     * Whether one store may serve ranges with different starts and blocks of different sizes at once: {@code true} by
     * default. A store that documents one range start and block size per store (ZooKeeper: per namespace) says
     * {@code false}, and a test that needs two then runs each in a fresh store ({@link #closeStore()},
     * {@link #openStore()}, once every provider of the test so far was closed):
     * {@link #concurrentClaimersGetDistinctWholeBlocksOrARangeFullError} each block size, in a range with room for
     * fewer blocks than claimers, and {@link #clocksApartWithinTheDocumentedBoundNeverRepeatAnId} each direction.
     */
    protected boolean mixesRangesAndBlockSizes() {
        return true;
    }

    /**
     * Whether a claim follows the range's {@link MachineIdRange#order() order}: the top whole block first for a
     * descending (server) range. {@code true} by default, ZooKeeper included (a new namespace records the order of
     * the range it was first used with); a store that maps its own sequence to blocks from the range start whatever
     * the order says {@code false}, and {@link #aDescendingRangeIsHandedOutFromTheTopDown} checks only that its blocks
     * are distinct and in the range.
     */
    protected boolean followsRangeOrder() {
        return true;
    }

    /**
     * For a fault hook whose fault the store cannot have by its design: skips the test that needs it, saying so.
     * @param fault what the test needs, {@code "restart empty"}
     * @param why   why the store cannot have it, {@code "a database loses no committed write"}
     */
    protected static <T> T notSupported(String fault, String why) {
        Assumptions.assumeTrue(false, "'" + fault + "' is not supported by this store: " + why);
        throw new AssertionError("unreachable");
    }

    // ---------------------------------------------------------------- life cycle

    @BeforeEach
    final void openContractStore() throws Exception {
        issued.clear();
        openStore();
    }

    @AfterEach
    final void closeEverything() throws Exception {
        try {
            closeProviders();
        } finally {
            closeStore();
        }
    }

    /** Closes every provider of the test so far and replaces its store with a fresh one. */
    private void freshStore() throws Exception {
        closeProviders();
        closeStore();
        openStore();
    }

    /** Closes every provider and service of the test so far, newest first, in parallel. */
    private void closeProviders() throws Exception {
        List<AutoCloseable> closing;
        synchronized (toClose) {
            closing = new ArrayList<>(toClose);
            toClose.clear();
        }
        Collections.reverse(closing);
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(32, closing.size())));
        try {
            List<Future<?>> done = new ArrayList<>();
            for (AutoCloseable closeable : closing) {
                done.add(pool.submit(() -> {
                    closeable.close();
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    // ---------------------------------------------------------------- the guarantees

    /**
     * 200 nodes claim at once, 50 each of blocks of 1, 2, 4 and 8 machine IDs, in a range too small for all of them:
     * every block is aligned, whole and held by one node only; a node that gets none is told the range is full, and
     * holds no machine ID of it. A store of one block size ({@link #mixesRangesAndBlockSizes()}) runs each size in a
     * fresh store, its 50 nodes in a range of 32 blocks.
     */
    @Test
    void concurrentClaimersGetDistinctWholeBlocksOrARangeFullError() throws Exception {
        int[] sizes = {1, 2, 4, 8};
        if (mixesRangesAndBlockSizes()) {
            claimAtOnce(new MachineIdRange(0, 511), 200, i -> sizes[i % sizes.length]);
            return;
        }
        for (int round = 0; round < sizes.length; round++) {
            int blockSize = sizes[round];
            if (round > 0) {
                freshStore();
            }
            claimAtOnce(new MachineIdRange(0, 32L * blockSize - 1), 50, i -> blockSize);
        }
    }

    private void claimAtOnce(MachineIdRange range, int claimers, java.util.function.IntUnaryOperator blockSizes)
            throws Exception {
        ManualTimeSource clock = clock();
        List<MachineIdProvider> providers = new ArrayList<>();
        for (int i = 0; i < claimers; i++) {
            providers.add(start(new Node("claimer-" + i, LEASE, INERT, clock)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(claimers);
        Map<Integer, Object> outcome = new ConcurrentHashMap<>();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < claimers; i++) {
                int index = i;
                int blockSize = blockSizes.applyAsInt(i);
                done.add(pool.submit(() -> {
                    go.await();
                    try {
                        outcome.put(index, new MachineIdBlock(providers.get(index).acquire(range, blockSize), blockSize));
                    } catch (RuntimeException e) {
                        outcome.put(index, e);
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> future : done) {
                future.get(45, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Map<Long, String> holders = new ConcurrentHashMap<>();
        int held = 0;
        for (int i = 0; i < claimers; i++) {
            Object result = outcome.get(i);
            String owner = "claimer-" + i;
            if (result instanceof MachineIdBlock block) {
                held++;
                assertThat(range.holdsBlock(block.first(), block.size())).as("%s got %s, not an aligned block of %s",
                        owner, block, range).isTrue();
                assertThat(providers.get(i).lease().isHeldAt(clock.currentTimeMillis())).as(owner).isTrue();
                for (long id = block.first(); id <= block.last(); id++) {
                    String other = holders.putIfAbsent(id, owner);
                    assertThat(other).as("machine ID %d is held by %s and %s", id, other, owner).isNull();
                }
            } else {
                assertThat((Throwable) result).as(owner).isInstanceOf(MachineIdUnavailableException.class)
                        .hasMessageContaining(range.toString());
            }
        }
        assertThat(held).as("blocks held").isPositive().isLessThan(claimers);
        // A claimer told the range is full is told the truth: no aligned block of its size is free.
        for (int i = 0; i < claimers; i++) {
            int blockSize = blockSizes.applyAsInt(i);
            if (outcome.get(i) instanceof MachineIdBlock) {
                continue;
            }
            for (long b = 0; b < range.blocks(blockSize); b++) {
                long start = range.blockStart(b, blockSize);
                boolean free = true;
                for (long id = start; id < start + blockSize; id++) {
                    free &= !holders.containsKey(id);
                }
                assertThat(free).as("claimer-%d was refused a block of %d, yet %d-%d is free", i, blockSize, start,
                        start + blockSize - 1).isFalse();
            }
        }
        List<MachineIdLeaseInfo> store = leases(providers.get(0)).list(range);
        for (MachineIdLeaseInfo info : store) {
            if (info.live()) {
                assertThat(info.owner()).as("the store's holder of machine ID %d", info.machineId())
                        .isEqualTo(holders.get(info.machineId()));
            }
        }
        assertThat(store.stream().filter(MachineIdLeaseInfo::live).count()).as("machine IDs live in the store")
                .isEqualTo(holders.size());
    }

    /**
     * Servers count down from the top of their range, embedded nodes up from the bottom, so that the boundary between
     * the two ranges can move without stranding a node: a descending range gives its top whole block first (blocks
     * still aligned from the range start), then the next one down; an ascending one its lowest.
     */
    @Test
    void aDescendingRangeIsHandedOutFromTheTopDown() throws Exception {
        MachineIdRange down = new MachineIdRange(0, 13, MachineIdRange.Order.DESCENDING);
        ManualTimeSource clock = clock();
        List<Long> firsts = new ArrayList<>();
        for (String owner : List.of("server-a", "server-b", "server-c")) {
            firsts.add(start(new Node(owner, LEASE, INERT, clock)).acquire(down, 4));
        }
        assertThat(firsts).doesNotHaveDuplicates().allSatisfy(first -> assertThat(down.holdsBlock(first, 4)).isTrue());
        if (followsRangeOrder()) {
            assertThat(firsts).as("0-13 holds blocks of 4 at 0, 4 and 8; 12-13 is too short").containsExactly(8L, 4L, 0L);
        }
    }

    /**
     * A node that restarts gets its own block back, whoever else claimed meanwhile, and its IDs start after those of
     * its previous run.
     */
    @Test
    void restartOfTheSameOwnerGetsItsOwnBlockBack() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 15);
        ManualTimeSource clock = clock();
        EmbeddedIdService early = ids(start(new Node("early", LEASE, INERT, clock)), clock, range, 4);
        EmbeddedIdService first = ids(start(new Node("restarting", LEASE, INERT, clock)), clock, range, 4);
        MachineIdBlock block = first.machineIdBlock();
        assertThat(block).isNotEqualTo(early.machineIdBlock());
        issue(early, "early", 100);
        issue(first, "restarting (first run)", 500);
        early.close();
        first.close();
        clock.advance(Duration.ofMillis(5));
        // A lower block is free now; the owner's own comes first.
        EmbeddedIdService second = ids(start(new Node("restarting", LEASE, INERT, clock)), clock, range, 4);
        assertThat(second.machineIdBlock()).as("the block of the restarted owner").isEqualTo(block);
        issue(second, "restarting (second run)", 500);
        EmbeddedIdService other = ids(start(new Node("other", LEASE, INERT, clock)), clock, range, 4);
        assertThat(other.machineIdBlock()).isNotEqualTo(block);
        issue(other, "other", 100);

        // And after its lease ran out, with a lower block free: still its own.
        second.close();
        other.close();
        clock.advance(LEASE.multipliedBy(2));
        EmbeddedIdService third = ids(start(new Node("restarting", LEASE, INERT, clock)), clock, range, 4);
        assertThat(third.machineIdBlock()).as("the block of the owner restarted after its lease").isEqualTo(block);
        issue(third, "restarting (third run)", 500);
    }

    /**
     * A holder renewing at the very moment another node takes its block over (its lease has just run out by the
     * shared clock): one of the two wins. The two never hold the block at once, and a taker starts after every lease
     * end the holder had confirmed. Repeated, the losers claiming again by themselves.
     */
    @Test
    void renewalRacingATakeoverNeverLetsTwoHoldAtOnce() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 1);
        ManualTimeSource clock = clock();
        int nodes = 3;
        List<MachineIdProvider> providers = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<EmbeddedIdService> services = new ArrayList<>(Collections.nCopies(nodes, null));
        for (int i = 0; i < nodes; i++) {
            providers.add(start(new Node("racer-" + i, Duration.ofSeconds(1), fastRenewal(), clock)));
        }
        services.set(0, ids(providers.get(0), clock, range, 2));
        AtomicBoolean stop = new AtomicBoolean();
        Map<Integer, AtomicLong> maxHeld = new ConcurrentHashMap<>();
        AtomicLong overlaps = new AtomicLong();
        Thread watcher = new Thread(() -> {
            while (!stop.get()) {
                long now = clock.currentTimeMillis();
                int holding = 0;
                for (int i = 0; i < nodes; i++) {
                    long until = providers.get(i).lease().heldUntil();
                    if (until > now) {
                        holding++;
                    }
                    if (until != Long.MIN_VALUE) {
                        maxHeld.computeIfAbsent(i, k -> new AtomicLong(Long.MIN_VALUE)).accumulateAndGet(until, Math::max);
                    }
                }
                if (holding > 1 && clock.currentTimeMillis() == now) {
                    overlaps.incrementAndGet();
                }
                Thread.onSpinWait();
            }
        }, "lease-watcher");
        watcher.setDaemon(true);
        watcher.start();
        int takeovers = 0;
        try {
            for (int round = 0; round < 12; round++) {
                int holder = holderOf(providers, clock);
                // The holder's lease ends now by the shared clock; it renews within one interval, the taker claims now.
                clock.set(Instant.ofEpochMilli(providers.get(holder).lease().heldUntil() + 1));
                int taker = -1;
                for (int i = 0; i < nodes; i++) {
                    if (services.get(i) == null && providers.get(i).grant().isEmpty()) {
                        taker = i;
                        break;
                    }
                }
                long holderHeld = maxHeld.getOrDefault(holder, new AtomicLong(Long.MIN_VALUE)).get();
                if (taker >= 0) {
                    try {
                        services.set(taker, ids(providers.get(taker), clock, range, 2));
                        takeovers++;
                        assertThat(providers.get(taker).notBefore().orElse(Long.MIN_VALUE))
                                .as("the mark racer-%d took the block over with", taker)
                                .isGreaterThanOrEqualTo(holderHeld);
                    } catch (MachineIdUnavailableException refused) {
                        // The holder's renewal won; a failed build closed the provider, so the node starts afresh.
                        providers.set(taker, start(new Node("racer-" + taker, Duration.ofSeconds(1), fastRenewal(), clock)));
                    }
                }
                // Settle: one node holds the block again (a loser claims again by itself after one interval).
                awaitTrue("one node holds the block again after round " + round, () -> holderOrNone(providers, clock) >= 0);
                for (int i = 0; i < nodes; i++) {
                    if (services.get(i) != null) {
                        tryIssue(services.get(i), "racer-" + i, 50);
                    }
                }
                clock.advance(Duration.ofMillis(3));
            }
        } finally {
            stop.set(true);
            watcher.join(5_000);
        }
        assertThat(overlaps.get()).as("moments two nodes held the block by the same clock reading").isZero();
        assertThat(issued).as("IDs issued").isNotEmpty();
        System.out.println("renewalRacingATakeover: " + takeovers + " of 12 rounds were won by the taker");
    }

    /**
     * A holder whose renewals stopped keeps its block for its whole lease: no other node takes it a millisecond
     * before the lease ends; once it has, the taker starts after the holder's mark, and the stale holder's close does
     * not free the taker's block.
     */
    @Test
    void takeoverOnlyAfterTheWholeLeaseAndAfterTheHighWater() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 0);
        ManualTimeSource clock = clock();
        MachineIdProvider staleProvider = start(new Node("stale", LEASE, INERT, clock));
        EmbeddedIdService stale = ids(staleProvider, clock, range, 1);
        issue(stale, "stale", 200);
        long end = staleProvider.lease().heldUntil();
        clock.set(Instant.ofEpochMilli(end - 1));
        issue(stale, "stale", 200);
        assertThatThrownBy(() -> start(new Node("early", LEASE, INERT, clock)).acquire(range))
                .as("a claim a millisecond before the holder's lease ends").isInstanceOf(MachineIdUnavailableException.class);
        clock.set(Instant.ofEpochMilli(end + 1));
        assertThatThrownBy(stale::genId).as("the stale holder after its lease").isInstanceOf(MachineIdUnavailableException.class);
        handOver(range, 0, clock);
        MachineIdProvider takerProvider = start(new Node("taker", LEASE, INERT, clock));
        EmbeddedIdService taker = ids(takerProvider, clock, range, 1);
        assertThat(takerProvider.notBefore()).as("the taker's mark").isPresent();
        assertThat(takerProvider.notBefore().getAsLong()).isGreaterThanOrEqualTo(end - 1);
        issue(taker, "taker", 500);
        stale.close();
        assertThat(takerProvider.lease().isHeldAt(clock.currentTimeMillis())).as("the taker after the stale holder closed")
                .isTrue();
        assertThatThrownBy(() -> start(new Node("late", LEASE, INERT, clock)).acquire(range))
                .as("a claim after the stale holder closed").isInstanceOf(MachineIdUnavailableException.class);
        issue(taker, "taker", 500);
    }

    /**
     * Closing a node releases its block with a high water above every ID it issued: the store shows the block ended,
     * and the next holder takes it at once and starts after that mark.
     */
    @Test
    void releaseWritesTheHighWaterAndTheNextHolderStartsAfterIt() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 0);
        ManualTimeSource clock = clock();
        EmbeddedIdService first = ids(start(new Node("first", LEASE, INERT, clock)), clock, range, 1);
        long last = issue(first, "first", 3000);
        long lastTime = first.transTime(first.expId(last).time()).toEpochMilli();
        first.close();
        MachineIdProvider nextProvider = start(new Node("next", LEASE, INERT, clock));
        MachineIdLeaseInfo released = leases(nextProvider).list(range).get(0);
        assertThat(released.live()).as("the released block is live").isFalse();
        assertThat(released.highWater().toEpochMilli()).as("the released block's high water").isGreaterThan(lastTime);
        handOver(range, 0, clock);
        EmbeddedIdService next = ids(nextProvider, clock, range, 1);
        assertThat(nextProvider.notBefore().orElse(Long.MIN_VALUE)).as("the next holder's mark").isGreaterThan(lastTime)
                .isLessThanOrEqualTo(clock.currentTimeMillis() + 1);
        issue(next, "next", 3000);
    }

    /**
     * The store restarts with nothing in it while a node holds a block and issues: a node that claims the block
     * afterwards does not issue an ID the holder issued, or still issues up to its lease end.
     */
    @Test
    void storeRestartedEmptyNeverMakesTwoNodesIssueTheSameId() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 0);
        ManualTimeSource clock = clock();
        MachineIdProvider holderProvider = start(new Node("holder", LEASE, INERT, clock));
        EmbeddedIdService holder = ids(holderProvider, clock, range, 1);
        issue(holder, "holder", 500);
        restartEmpty();
        provesLostWritesAreWaitedOut(clock, range, holderProvider, holder);
    }

    /**
     * The store is rolled back to a snapshot taken before a node claimed its block: a node that claims the block
     * afterwards does not issue an ID the holder issued, or still issues up to its lease end.
     */
    @Test
    void storeRolledBackToASnapshotNeverMakesTwoNodesIssueTheSameId() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 0);
        ManualTimeSource clock = clock();
        MachineIdProvider holderProvider = start(new Node("holder", LEASE, INERT, clock));
        Snapshot before = snapshot();
        clock.advance(Duration.ofMillis(10));
        EmbeddedIdService holder = ids(holderProvider, clock, range, 1);
        issue(holder, "holder", 500);
        before.rollBack();
        provesLostWritesAreWaitedOut(clock, range, holderProvider, holder);
    }

    private void provesLostWritesAreWaitedOut(ManualTimeSource clock, MachineIdRange range, MachineIdProvider holderProvider,
            EmbeddedIdService holder) throws Exception {
        long holderEnd = holderProvider.lease().heldUntil();
        // The taker may have to wait out a whole lease before its first ID: it renews meanwhile.
        MachineIdProvider takerProvider = start(new Node("taker", LEASE, fastRenewal(), clock));
        EmbeddedIdService taker = ids(takerProvider, clock, range, 1);
        assertThat(takerProvider.notBefore()).as("the mark of a claim after the store lost its writes").isPresent();
        assertThat(takerProvider.notBefore().getAsLong()).as("the mark of a claim after the store lost its writes")
                .isGreaterThanOrEqualTo(holderEnd - 1);
        // The holder cannot know yet: it issues to its lease end, and the taker after it.
        clock.set(Instant.ofEpochMilli(holderEnd - 2));
        issue(holder, "holder", 500);
        passTo(clock, takerProvider.notBefore().getAsLong() + 1, takerProvider);
        issue(taker, "taker", 500);
    }

    /**
     * The store applies a node's claim and the reply is lost: the node is told it has no block and holds none, no
     * other node gets the block it was written, and it gets that block back when it claims again. Then a renewal's
     * reply is lost: the node never issues past the lease end it had confirmed before, and holds a block again,
     * by itself, once replies come back.
     */
    @Test
    void aReplyLostAfterTheWriteCommitted() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 3);
        ManualTimeSource clock = clock();
        MachineIdProvider nodeProvider = start(new Node("node", LEASE, fastRenewal(), clock));
        try (AutoCloseable lost = loseReplies()) {
            assertThatThrownBy(() -> nodeProvider.acquire(range, 2)).as("a claim whose reply was lost")
                    .isInstanceOf(RuntimeException.class);
            assertThat(nodeProvider.lease().isHeldAt(clock.currentTimeMillis())).isFalse();
        }
        MachineIdProvider otherProvider = start(new Node("other", LEASE, fastRenewal(), clock));
        EmbeddedIdService other = ids(otherProvider, clock, range, 2);
        EmbeddedIdService node = ids(nodeProvider, clock, range, 2);
        assertThat(node.machineIdBlock()).as("the node's block after its claim's reply was lost")
                .isNotEqualTo(other.machineIdBlock());
        // The claim that was applied wrote a lease end, and the node's IDs start after it: time passes to it.
        passTo(clock, nodeProvider.notBefore().orElse(Long.MIN_VALUE) + 1, nodeProvider, otherProvider);
        issue(node, "node", 300);
        issue(other, "other", 300);

        try (AutoCloseable lost = loseReplies()) {
            // A reply on its way when the fault began may still arrive; every later one is lost.
            Thread.sleep(100);
            long confirmed = nodeProvider.lease().heldUntil();
            long deadline = System.nanoTime() + fastRenewal().toNanos() * 10 + 500_000_000L;
            while (System.nanoTime() < deadline) {
                assertThat(nodeProvider.lease().heldUntil()).as("the node's lease while renewal replies are lost")
                        .isLessThanOrEqualTo(confirmed);
                Thread.sleep(5);
            }
        }
        // The renewals that landed moved the store on: the node renews again, or loses the block and claims again.
        awaitTrue("the node holds a block again", () -> nodeProvider.grant().map(g -> g.lease().isHeldAt(
                clock.currentTimeMillis())).orElse(false));
        tryIssue(node, "node", 300);
        issue(other, "other", 300);
    }

    /**
     * The store stops answering for longer than the lease: the holder issues up to its lease end and not a
     * millisecond after it, and once the store answers again a taker starts after that end.
     */
    @Test
    void aStoreStalledPastTheLeaseStopsTheHolderAtItsLeaseEnd() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 0);
        ManualTimeSource clock = clock();
        MachineIdProvider holderProvider = start(new Node("holder", LEASE, fastRenewal(), clock));
        EmbeddedIdService holder = ids(holderProvider, clock, range, 1);
        issue(holder, "holder", 300);
        long end;
        try (AutoCloseable stalled = stall()) {
            Thread.sleep(fastRenewal().toMillis() * 3);
            end = holderProvider.lease().heldUntil();
            clock.set(Instant.ofEpochMilli(end - 1));
            issue(holder, "holder", 300);
            clock.set(Instant.ofEpochMilli(end));
            assertThatThrownBy(holder::genId).as("the holder at its lease end while the store is stalled")
                    .isInstanceOf(MachineIdUnavailableException.class);
            clock.advance(LEASE);
            assertThatThrownBy(holder::genId).as("the holder a lease after its lease end")
                    .isInstanceOf(MachineIdUnavailableException.class);
        }
        MachineIdProvider takerProvider = start(new Node("taker", LEASE, INERT, clock));
        EmbeddedIdService taker;
        try {
            taker = ids(takerProvider, clock, range, 1);
        } catch (MachineIdUnavailableException heldAgain) {
            // The holder's renewal that hung in the store landed first: it holds the block again.
            awaitTrue("the holder holds its block again", () -> holderProvider.lease().isHeldAt(clock.currentTimeMillis()));
            tryIssue(holder, "holder", 300);
            return;
        }
        assertThat(takerProvider.notBefore().orElse(Long.MIN_VALUE)).as("the taker's mark").isGreaterThanOrEqualTo(end - 1);
        issue(taker, "taker", 300);
        tryIssue(holder, "holder", 300);
    }

    /**
     * Two nodes whose clocks are as far apart as the store allows, either way: the one ahead takes the other's block
     * over as soon as its own clock says the lease ended, and still never issues an ID the other issued up to its
     * lease end by its own clock.
     */
    @Test
    void clocksApartWithinTheDocumentedBoundNeverRepeatAnId() throws Exception {
        for (int sign : new int[] {1, -1}) {
            if (sign < 0 && !mixesRangesAndBlockSizes()) {
                freshStore();
            }
            MachineIdRange range = new MachineIdRange(sign > 0 ? 0 : 1, sign > 0 ? 0 : 1);
            long apart = sign * documentedClockBound().toMillis();
            ManualTimeSource holderClock = clock();
            ManualTimeSource takerClock = clock();
            takerClock.advance(Duration.ofMillis(apart));
            String holderName = sign > 0 ? "behind" : "ahead";
            MachineIdProvider holderProvider = start(new Node(holderName, LEASE, INERT, holderClock));
            EmbeddedIdService holder = ids(holderProvider, holderClock, range, 1);
            issue(holder, holderName, 300);
            long end = holderProvider.lease().heldUntil();
            takerClock.set(Instant.ofEpochMilli(end + 1));
            holderClock.set(Instant.ofEpochMilli(end + 1 - apart));
            String takerName = sign > 0 ? "taker-ahead" : "taker-behind";
            handOver(range, range.min(), takerClock);
            MachineIdProvider takerProvider = start(new Node(takerName, LEASE, INERT, takerClock));
            EmbeddedIdService taker = ids(takerProvider, takerClock, range, 1);
            assertThat(takerProvider.notBefore().orElse(Long.MIN_VALUE)).as("the mark of %s", takerName)
                    .isGreaterThanOrEqualTo(end - 1);
            // The holder issues to its own lease end, which its clock has not reached if it is behind.
            if (holderClock.currentTimeMillis() < end) {
                holderClock.set(Instant.ofEpochMilli(end - 1));
                issue(holder, holderName, 300);
            }
            issue(taker, takerName, 300);
        }
    }

    /**
     * {@code close()} while the node renews all the time and issues from another thread: close returns in bounded
     * time, no ID is issued after it returned, the block is released with a mark above every ID issued, and the next
     * holder starts after it. Repeated.
     */
    @Test
    void closeRacingARenewal() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 0);
        ManualTimeSource clock = clock();
        for (int round = 0; round < 8; round++) {
            MachineIdProvider provider = start(new Node("closing", LEASE, fastRenewal(), clock));
            EmbeddedIdService service = ids(provider, clock, range, 1);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicBoolean closeReturned = new AtomicBoolean();
            AtomicLong lastTime = new AtomicLong(Long.MIN_VALUE);
            AtomicLong lateIds = new AtomicLong();
            String who = "closing (round " + round + ")";
            Thread issuer = new Thread(() -> {
                while (!stop.get()) {
                    boolean late = closeReturned.get();
                    try {
                        long id = service.genId();
                        record(id, who);
                        if (late) {
                            lateIds.incrementAndGet();
                        }
                        lastTime.accumulateAndGet(service.transTime(service.expId(id).time()).toEpochMilli(), Math::max);
                        clock.advance(Duration.ofMillis(1));
                    } catch (RuntimeException refused) {
                        if (late) {
                            return;
                        }
                    }
                }
            }, "issuer");
            issuer.start();
            Thread.sleep(fastRenewal().toMillis() * (1 + round % 3) + round);
            long began = System.nanoTime();
            provider.close();
            closeReturned.set(true);
            assertThat(Duration.ofNanos(System.nanoTime() - began)).as("close() while renewing")
                    .isLessThan(Duration.ofSeconds(10));
            issuer.join(5_000);
            stop.set(true);
            assertThat(lateIds.get()).as("IDs of calls begun after close() returned").isZero();
            service.close();
            handOver(range, 0, clock);
            MachineIdProvider nextProvider = start(new Node("next-" + round, LEASE, INERT, clock));
            EmbeddedIdService next = ids(nextProvider, clock, range, 1);
            assertThat(nextProvider.notBefore().orElse(Long.MIN_VALUE)).as("the mark after round %d", round)
                    .isGreaterThan(lastTime.get());
            issue(next, "next-" + round, 100);
            next.close();
            handOver(range, 0, clock);
        }
    }

    /**
     * A node whose block was ended by an operator and taken by another node claims a block again by itself: its
     * generator moves to it, and its IDs start after the mark that block's previous holder left.
     */
    @Test
    void regainingAfterALossStartsAfterTheNewBlocksMark() throws Exception {
        MachineIdRange range = new MachineIdRange(0, 1);
        ManualTimeSource clock = clock();
        MachineIdProvider nodeProvider = start(new Node("node", LEASE, fastRenewal(), clock));
        EmbeddedIdService node = ids(nodeProvider, clock, range, 1);
        MachineIdProvider usedProvider = start(new Node("used", LEASE, INERT, clock));
        EmbeddedIdService used = ids(usedProvider, clock, range, 1);
        assertThat(node.machineId()).isEqualTo(0);
        assertThat(used.machineId()).isEqualTo(1);
        long usedLast = issue(used, "used", 3000);
        long usedLastTime = used.transTime(used.expId(usedLast).time()).toEpochMilli();
        used.close();
        handOver(range, 1, clock);
        long nodeLast = issue(node, "node (first block)", 300);
        long nodeLastTime = node.transTime(node.expId(nodeLast).time()).toEpochMilli();
        MachineIdProvider operator = start(new Node("operator", LEASE, INERT, clock));
        assertThat(leases(operator).release(0, true).ended()).as("the operator's forced release").isTrue();
        MachineIdProvider takerProvider = start(new Node("taker", LEASE, fastRenewal(), clock));
        EmbeddedIdService taker = ids(takerProvider, clock, range, 1);
        // The taker starts after the lease end the node had written: time passes to it.
        passTo(clock, takerProvider.notBefore().orElse(Long.MIN_VALUE) + 1, takerProvider);
        issue(taker, "taker", 300);
        awaitTrue("the node claims another block by itself", () -> nodeProvider.grant().map(MachineIdGrant::number)
                .orElse(0L) >= 2 && nodeProvider.lease().isHeldAt(clock.currentTimeMillis()));
        MachineIdGrant regained = nodeProvider.grant().orElseThrow();
        passTo(clock, regained.notBefore().orElse(Long.MIN_VALUE) + 1, nodeProvider, takerProvider);
        assertThat(regained.block().first()).as("the block claimed again").isNotEqualTo(taker.machineId());
        // Its previous holder: "used" for machine ID 1; the node itself for 0, had it claimed 0 back first.
        assertThat(regained.notBefore().orElse(Long.MIN_VALUE)).as("the mark of the block claimed again")
                .isGreaterThan(regained.block().first() == 1 ? usedLastTime : nodeLastTime);
        long first = issue(node, "node (second block)", 300);
        assertThat(node.expId(first).machine()).isEqualTo(regained.block().first());
        issue(taker, "taker", 300);
    }

    // ---------------------------------------------------------------- helpers

    /** A manual clock at {@link #T0}. */
    protected static ManualTimeSource clock() {
        return new ManualTimeSource(T0);
    }

    /** A provider of {@code node}, closed after the test. */
    protected final MachineIdProvider start(Node node) throws Exception {
        MachineIdProvider provider = provider(node);
        toClose.add(provider);
        return provider;
    }

    /** An ID service on {@code provider} (which it acquires), issuing by {@code clock}; closed after the test. */
    protected final EmbeddedIdService ids(MachineIdProvider provider, TimeSource clock, MachineIdRange range, int blockSize) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineIdProvider(provider)
                .machineIdRange(range).machineIdBlockSize(blockSize).timeSource(clock).build();
        toClose.add(service);
        return service;
    }

    /** Issues {@code count} IDs with {@code service}, each one never issued before in this test; returns the last. */
    protected final long issue(EmbeddedIdService service, String who, int count) {
        long last = -1;
        for (int i = 0; i < count; i++) {
            last = service.genId();
            record(last, who);
        }
        return last;
    }

    /** As {@link #issue}, but stops at the first refusal; returns how many were issued. */
    protected final int tryIssue(EmbeddedIdService service, String who, int count) {
        for (int i = 0; i < count; i++) {
            long id;
            try {
                id = service.genId();
            } catch (IllegalStateException refused) {
                return i;
            }
            record(id, who);
        }
        return count;
    }

    private void record(long id, String who) {
        String before = issued.putIfAbsent(id, who);
        if (before != null) {
            fail("ID " + id + " was issued twice: by " + before + " and by " + who);
        }
    }

    /**
     * Lets another owner take the block of {@code machineId}, which its holder released or whose lease ended by
     * {@code clock}: nothing to do unless {@link #blocksStayWithTheirOwner()}; then another owner is refused it, and an
     * operator (a node that holds no block) ends its lease by force.
     */
    private void handOver(MachineIdRange range, long machineId, ManualTimeSource clock) throws Exception {
        if (!blocksStayWithTheirOwner()) {
            return;
        }
        assertThatThrownBy(() -> start(new Node("stranger", LEASE, INERT, clock)).acquire(range))
                .as("another owner's claim of a block that stays with its owner").isInstanceOf(
                        MachineIdUnavailableException.class);
        MachineIdProvider operator = start(new Node("operator", LEASE, INERT, clock));
        MachineIdLeases.Released ended = leases(operator).release(machineId, true);
        assertThat(ended.ended()).as("the operator's end of machine ID %d: %s", machineId, ended.detail()).isTrue();
    }

    private static MachineIdLeases leases(MachineIdProvider provider) {
        return provider.leases().orElseThrow(() -> new AssertionError(provider.describe() + " has no leases()"));
    }

    /** The one node that holds its block by {@code clock} now; fails when two do. */
    private static int holderOf(List<MachineIdProvider> providers, ManualTimeSource clock) {
        int holder = holderOrNone(providers, clock);
        assertThat(holder).as("a node holding the block").isNotNegative();
        return holder;
    }

    private static int holderOrNone(List<MachineIdProvider> providers, ManualTimeSource clock) {
        long now = clock.currentTimeMillis();
        int holder = -1;
        for (int i = 0; i < providers.size(); i++) {
            if (providers.get(i).lease().isHeldAt(now)) {
                assertThat(holder).as("nodes holding the block at %s: racer-%d and racer-%d", Instant.ofEpochMilli(now),
                        holder, i).isNegative();
                holder = i;
            }
        }
        return holder;
    }

    /**
     * Moves {@code clock} to {@code epochMillis}, as time passing, and waits until each of {@code renewing} (nodes that
     * renew all the time) holds its block again by it.
     */
    protected static void passTo(ManualTimeSource clock, long epochMillis, MachineIdProvider... renewing)
            throws InterruptedException {
        if (clock.currentTimeMillis() < epochMillis) {
            clock.set(Instant.ofEpochMilli(epochMillis));
        }
        for (MachineIdProvider provider : renewing) {
            awaitTrue(provider.describe() + " holds its block at " + clock.now(),
                    () -> provider.lease().isHeldAt(clock.currentTimeMillis()));
        }
    }

    /** Waits, in real time, up to 20 s for {@code condition}. */
    protected static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        io.vesta.test.Await.until(what, java.time.Duration.ofSeconds(20), condition);
    }
}
