package io.vesta.test.lease;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.test.Await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fallback machine ID ({@code EmbeddedIdServiceBuilder.machineIdFallback}) against a real store that a test can cut
 * and restore: the same two scenarios on every store, with several threads taking IDs throughout.
 * <ul>
 * <li>{@link #storeDownAtStartUp()}: the node starts on its fallback, issues, and goes to a leased block once the store
 * answers.</li>
 * <li>{@link #storeLostMidRun()}: a node on a lease loses the store past its lease; it stops issuing under the lease
 * once the lease no longer covers the clock, issues under the fallback, and under a leased block again once the store
 * is back.</li>
 * </ul>
 * Each checks that no ID repeats across all of it, and that the IDs of each phase decode to the machine ID of that phase.
 * {@link #close()} closes every service built and the issuing threads.
 */
public final class FallbackScenario implements AutoCloseable {

    /** How long a switch or a phase's IDs may take: generous, for a busy 2-core machine and a store's timeouts. */
    public static final Duration WITHIN = Duration.ofSeconds(90);

    /** IDs taken in each phase at least. */
    static final long PER_PHASE = 5_000;

    private static final int THREADS = 3;

    /** The store's side of the scenario. */
    public interface Store {
        /** The provider of leased machine IDs in {@code range}, with a lease of a few seconds at most. */
        MachineIdProvider provider();

        /** The store stops answering this node (its connections cut, the server stopped). */
        void cut() throws Exception;

        /** The store answers again, with what it held before. */
        void restore() throws Exception;

        /** A store reached through {@code relay}: cut and restored there. */
        static Store behind(TcpRelay relay, Supplier<MachineIdProvider> provider) {
            return new Store() {
                @Override
                public MachineIdProvider provider() {
                    return provider.get();
                }

                @Override
                public void cut() {
                    relay.cut();
                }

                @Override
                public void restore() {
                    relay.restore();
                }
            };
        }
    }

    private final Store store;
    private final MachineIdRange range;
    private final long fallback;
    private final Path marks;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /**
     * @param range the range the store hands out
     * @param fallback the node's fallback machine ID, outside {@code range}
     * @param marks the node's time-store directory
     */
    public FallbackScenario(Store store, MachineIdRange range, long fallback, Path marks) {
        this.store = store;
        this.range = range;
        this.fallback = fallback;
        this.marks = marks;
    }

    private EmbeddedIdService service() {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineIdRange(range)
                .machineIdProvider(store.provider()).machineIdFallback(fallback)
                .machineIdFallbackCheckInterval(Duration.ofMillis(100)).timestampStoreDirectory(marks).build();
        toClose.add(service);
        return service;
    }

    /**
     * The store is down when the node starts: the node issues under its fallback, and under a leased block once the
     * store answers; no ID twice, the fallback's IDs before the leased ones.
     */
    public void storeDownAtStartUp() throws Exception {
        store.cut();
        EmbeddedIdService service = service();
        assertThat(service.onFallback()).as("on the fallback while the store is down").isTrue();
        assertThat(service.machineId()).isEqualTo(fallback);
        Takers takers = new Takers(service);
        awaitIssued(takers, "IDs under the fallback", service::fallbackIdsIssued, PER_PHASE);
        int[] onFallback = takers.sizes();

        Leased leased = backToALease(service, takers);
        List<long[]> ids = takers.stop();

        assertThat(decoded(service, ids, null, onFallback)).as("machine IDs while the store was down").containsOnly(fallback);
        long[] all = checkAll(service, ids, leased, fallback, leased.machineId());
        assertThat(maxWall(service, all, fallback)).as("the fallback's last ID, before the leased block's first")
                .isLessThanOrEqualTo(minWall(service, all, leased.machineId()));
    }

    /**
     * The node holds a lease when the store is cut for longer than the lease: the node issues under the leased
     * machine ID only while its lease covers the clock, then under its fallback, then under a leased block again once
     * the store is back; no ID twice across all of it.
     */
    public void storeLostMidRun() throws Exception {
        EmbeddedIdService service = service();
        assertThat(service.onFallback()).isFalse();
        long first = service.machineId();
        assertThat(range.contains(first)).as("leased machine ID %d in %s", first, range).isTrue();
        MachineIdLease lease = service.machineIdLease();
        Takers takers = new Takers(service);
        awaitIssued(takers, "IDs under the first lease", service::idsIssued, PER_PHASE);
        int[] underLease = takers.sizes();

        store.cut();
        Await.until("the fallback once the lease can no longer be renewed", WITHIN, service::onFallback);
        long leaseEnd = lease.unheldSince();
        assertThat(lease.isHeldAt(System.currentTimeMillis())).as("the first lease, once on the fallback").isFalse();
        int[] fallbackFrom = takers.settled();
        long fallbackBefore = service.fallbackIdsIssued();
        awaitIssued(takers, "IDs under the fallback", service::fallbackIdsIssued, fallbackBefore + PER_PHASE);
        int[] fallbackTo = takers.sizes();

        Leased leased = backToALease(service, takers);
        long again = leased.machineId();
        List<long[]> ids = takers.stop();

        assertThat(decoded(service, ids, null, underLease)).as("machine IDs under the first lease").containsOnly(first);
        assertThat(decoded(service, ids, fallbackFrom, fallbackTo)).as("machine IDs with the store cut").containsOnly(fallback);
        long[] all = checkAll(service, ids, leased, first, fallback, again);
        long minFallback = minWall(service, all, fallback);
        long maxFallback = maxWall(service, all, fallback);
        // Every ID of the leased machine ID lies before the fallback's spell, within the lease, or after it.
        for (long id : all) {
            long machine = service.expId(id).machine();
            if (machine == fallback) {
                continue;
            }
            long wall = wall(service, id);
            if (wall <= minFallback) {
                assertThat(machine).isEqualTo(first);
                if (leaseEnd != Long.MIN_VALUE) {
                    assertThat(wall).as("an ID of the first lease, before the lease's end %d", leaseEnd).isLessThan(leaseEnd);
                }
            } else {
                assertThat(wall).as("an ID of machine ID %d issued during the fallback's spell", machine)
                        .isGreaterThanOrEqualTo(maxFallback);
                assertThat(machine).isEqualTo(again);
            }
        }
    }

    /** A leased machine ID the service moved to, and where each thread's IDs under it begin. */
    private record Leased(long machineId, int[] from) {
    }

    /** The store restored: waits for the service to leave its fallback, and for IDs under the leased machine ID. */
    private Leased backToALease(EmbeddedIdService service, Takers takers) throws Exception {
        store.restore();
        Await.until("a leased machine ID once the store answers", WITHIN, () -> !service.onFallback());
        long machine = service.machineId();
        assertThat(range.contains(machine)).as("leased machine ID %d in %s", machine, range).isTrue();
        int[] from = takers.settled();
        long before = service.idsIssued();
        awaitIssued(takers, "IDs under the leased machine ID", service::idsIssued, before + PER_PHASE);
        return new Leased(machine, from);
    }

    /**
     * Every ID taken: those after the move to {@code leased} decode to it, none repeats, all decode to one of
     * {@code machines}, and the service's meter of fallback IDs counts exactly the fallback's.
     */
    private long[] checkAll(EmbeddedIdService service, List<long[]> ids, Leased leased, Long... machines) {
        assertThat(decoded(service, ids, leased.from(), null)).as("machine IDs once leased").containsOnly(leased.machineId());
        long[] all = all(ids);
        assertNoDuplicates(all);
        assertThat(machines(service, all)).containsOnly(machines);
        long fallbackIds = Arrays.stream(all).filter(id -> service.expId(id).machine() == fallback).count();
        assertThat(service.fallbackIdsIssued()).as("the meter of fallback IDs").isEqualTo(fallbackIds);
        return all;
    }

    private static void awaitIssued(Takers takers, String what, java.util.function.LongSupplier count, long atLeast)
            throws InterruptedException {
        Await.until(what + ": " + atLeast, WITHIN, () -> {
            takers.check();
            return count.getAsLong() >= atLeast;
        });
    }

    /** The machine IDs of each thread's IDs from {@code from} (or the start) up to {@code to} (or the end). */
    private static List<Long> decoded(EmbeddedIdService service, List<long[]> ids, int[] from, int[] to) {
        List<Long> machines = new ArrayList<>();
        for (int t = 0; t < ids.size(); t++) {
            long[] taken = ids.get(t);
            int end = to == null ? taken.length : to[t];
            for (int i = from == null ? 0 : from[t]; i < end; i++) {
                machines.add(service.expId(taken[i]).machine());
            }
        }
        assertThat(machines).as("IDs in the phase").isNotEmpty();
        return machines;
    }

    private static long[] all(List<long[]> ids) {
        return ids.stream().flatMapToLong(LongStream::of).toArray();
    }

    private static void assertNoDuplicates(long[] all) {
        long[] sorted = all.clone();
        Arrays.sort(sorted);
        List<Long> repeated = new ArrayList<>();
        for (int i = 1; i < sorted.length && repeated.size() < 10; i++) {
            if (sorted[i] == sorted[i - 1]) {
                repeated.add(sorted[i]);
            }
        }
        assertThat(repeated).as("IDs issued twice among %,d", all.length).isEmpty();
    }

    private static List<Long> machines(EmbeddedIdService service, long[] all) {
        return Arrays.stream(all).map(id -> service.expId(id).machine()).distinct().boxed().toList();
    }

    private static long wall(EmbeddedIdService service, long id) {
        return service.transTime(service.expId(id).time()).toEpochMilli();
    }

    private static long minWall(EmbeddedIdService service, long[] all, long machine) {
        return Arrays.stream(all).filter(id -> service.expId(id).machine() == machine).map(id -> wall(service, id))
                .min().orElseThrow();
    }

    private static long maxWall(EmbeddedIdService service, long[] all, long machine) {
        return Arrays.stream(all).filter(id -> service.expId(id).machine() == machine).map(id -> wall(service, id))
                .max().orElseThrow();
    }

    @Override
    public void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /**
     * Threads taking IDs from one service until stopped, each into an array of its own: batches of 1 to 32 with a
     * pause of a millisecond between (a few tens of thousands a second each, so the arrays stay small). A refusal
     * ({@link MachineIdUnavailableException}) is waited out; anything else stops the scenario.
     */
    private final class Takers {
        private final Taker[] takers = new Taker[THREADS];

        Takers(EmbeddedIdService service) {
            for (int t = 0; t < THREADS; t++) {
                takers[t] = new Taker(service, t);
                Thread thread = new Thread(takers[t], "fallback-taker-" + t);
                thread.setDaemon(true);
                takers[t].thread = thread;
                thread.start();
            }
            toClose.add(this::stop);
        }

        /** How many IDs each thread has taken. */
        int[] sizes() {
            int[] sizes = new int[THREADS];
            for (int t = 0; t < THREADS; t++) {
                sizes[t] = takers[t].size();
            }
            return sizes;
        }

        /**
         * The sizes once every thread has finished two more calls: each call counted after them started after the
         * caller saw the switch it waits for.
         */
        int[] settled() throws InterruptedException {
            long[] rounds = new long[THREADS];
            for (int t = 0; t < THREADS; t++) {
                rounds[t] = takers[t].rounds;
            }
            Await.until("two more calls of every taking thread", WITHIN, () -> {
                check();
                for (int t = 0; t < THREADS; t++) {
                    if (takers[t].rounds < rounds[t] + 2) {
                        return false;
                    }
                }
                return true;
            });
            return sizes();
        }

        void check() {
            for (Taker taker : takers) {
                if (taker.failure != null) {
                    throw new AssertionError("A thread taking IDs failed", taker.failure);
                }
            }
        }

        List<long[]> stop() throws InterruptedException {
            List<long[]> ids = new ArrayList<>();
            for (Taker taker : takers) {
                taker.stopped = true;
            }
            for (Taker taker : takers) {
                taker.thread.join(WITHIN.toMillis());
                assertThat(taker.thread.isAlive()).as("thread %d still taking IDs", taker.index).isFalse();
                ids.add(taker.ids());
            }
            check();
            return ids;
        }
    }

    private static final class Taker implements Runnable {
        final EmbeddedIdService service;
        final int index;
        Thread thread;
        volatile boolean stopped;
        volatile long rounds;
        volatile Throwable failure;
        private long[] ids = new long[1 << 14];
        private int size;

        Taker(EmbeddedIdService service, int index) {
            this.service = service;
            this.index = index;
        }

        @Override
        public void run() {
            int call = 0;
            try {
                while (!stopped) {
                    try {
                        int n = 1 + (call++ * 7 + index) % 32;
                        add(n == 1 ? new long[] { service.genId() } : service.genIds(n));
                    } catch (MachineIdUnavailableException e) {
                        // The window between a lease's end and the switch, if the generator meets it first.
                    }
                    rounds++;
                    Thread.sleep(1);
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        private synchronized void add(long[] taken) {
            if (size + taken.length > ids.length) {
                ids = Arrays.copyOf(ids, Math.max(ids.length * 2, size + taken.length));
            }
            System.arraycopy(taken, 0, ids, size, taken.length);
            size += taken.length;
        }

        synchronized int size() {
            return size;
        }

        synchronized long[] ids() {
            return Arrays.copyOf(ids, size);
        }
    }
}
