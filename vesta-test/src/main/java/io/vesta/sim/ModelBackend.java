package io.vesta.sim;

import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.function.Function;
import java.util.function.LongPredicate;

/**
 * One node's client of a model store: a {@link LeaseBackend} whose every store operation is a round trip through the
 * simulated network ({@link Simulation#call}): a request delay, the operation applied atomically at the store, a reply
 * delay, and the faults a network has (a request lost, a reply lost after the write landed, a request delivered
 * twice).
 *
 * @param <F> the fence of the node's writes
 */
abstract class ModelBackend<F extends ModelBackend.Fenced> implements LeaseBackend<F> {

    /** A store operation, applied atomically at the store's virtual instant. */
    @FunctionalInterface
    interface Op<T> {
        T apply();
    }

    /** The fence of a node's writes: whatever else it holds, the tenure its claim began. */
    interface Fenced {
        Tenure tenure();
    }

    /**
     * A lease record of a store that keeps one per machine ID (the table's row, the hash's entry).
     *
     * @param <R> the record itself
     */
    interface Leased<R extends Leased<R>> extends LeaseClaimWalk.Record {

        /** The high water the record's holder wrote: IDs of a later holder start after it. */
        long highWater();

        /** Moves on whenever the machine ID changes hands. */
        long generation();

        /** This record as a renewal or release by its holder writes it: {@code expiry} and {@code highWater}. */
        R written(long expiry, long highWater);
    }

    /** Whether a record still carries the fence of a node's writes; {@code offset} is its place in the block. */
    @FunctionalInterface
    interface FenceCheck<R, F> {
        boolean carries(R record, int offset, F fence);
    }

    /**
     * What a claim's take learns from the records it read: the highest high water among them (its IDs start after
     * it), or null when there is none, and the first other owner it takes a record from, or null.
     */
    record Previous(Long mark, String takenFrom) {

        static Previous of(List<? extends Leased<?>> read, String owner) {
            Long mark = null;
            String from = null;
            for (Leased<?> record : read) {
                if (record != null) {
                    mark = mark == null ? record.highWater() : Math.max(mark, record.highWater());
                    if (from == null && !record.owner().equals(owner)) {
                        from = record.owner();
                    }
                }
            }
            return new Previous(mark, from);
        }
    }

    /**
     * What a take of a store that may have lost writes (Redis, etcd) writes over the records it read, settling until
     * {@code settleUntil}: a generation above every record's, the high water its IDs start after (the records' highest,
     * and the settle while it lasts) or null, the first other owner or null, and the high water it writes with
     * {@code expiry}.
     */
    record Settled(long generation, Long notBefore, String takenFrom, long highWater) {

        static Settled of(List<? extends Leased<?>> read, String owner, long settleUntil, long now, long expiry) {
            long generation = 1;
            for (Leased<?> record : read) {
                if (record != null) {
                    generation = Math.max(generation, record.generation() + 1);
                }
            }
            Previous previous = Previous.of(read, owner);
            Long mark = previous.mark();
            if (settleUntil > now) {
                mark = mark == null ? settleUntil : Math.max(mark, settleUntil);
            }
            return new Settled(generation, mark, previous.takenFrom(), mark == null ? expiry : Math.max(mark, expiry));
        }
    }

    /** One read of a model store for a claim, a round trip through the network. */
    @FunctionalInterface
    interface Read<S> {
        S read() throws IOException;
    }

    /** A model store's take of a block, as {@link LeaseClaimWalk.Store#take}. */
    @FunctionalInterface
    interface Take<S, R, F> {
        LeaseClaimWalk.Attempt<LeaseClaim<F>> take(S snapshot, long first, List<R> block, long now) throws IOException;
    }

    final Simulation sim;
    final Simulation.Run run;

    ModelBackend(Simulation sim, Simulation.Run run) {
        this.sim = sim;
        this.run = run;
    }

    <T> T call(String what, Op<T> op) throws IOException {
        return sim.call(run, what, op);
    }

    long lease() {
        return sim.lease;
    }

    /**
     * Claims a block through {@link LeaseClaimWalk} over a model store's {@code read}, the {@code records} of one read
     * and its {@code take}, and records the tenure it began; the errors are the same for every model.
     *
     * @param <S> one read of the store
     * @param <R> a lease record
     */
    <S, R extends LeaseClaimWalk.Record> LeaseClaim<F> claim(MachineIdRange range, int blockSize, boolean startUp,
            Read<S> read, Function<S, NavigableMap<Long, R>> records, Take<S, R, F> take) throws IOException {
        return began(LeaseClaimWalk.claim(range, blockSize, run.node.owner, startUp, run.node.clock,
                new LeaseClaimWalk.Store<S, R, LeaseClaim<F>, IOException>() {
                    @Override
                    public S read() throws IOException {
                        return read.read();
                    }

                    @Override
                    public NavigableMap<Long, R> records(S snapshot) {
                        return records.apply(snapshot);
                    }

                    @Override
                    public LeaseClaimWalk.Attempt<LeaseClaim<F>> take(S snapshot, long first, List<R> block, long now)
                            throws IOException {
                        return take.take(snapshot, first, block, now);
                    }

                    @Override
                    public RuntimeException rangeFull(MachineIdRange range, int size, Collection<R> inRange,
                            long now) {
                        return unavailable("No block of " + size + " is free in range " + range);
                    }

                    @Override
                    public RuntimeException gaveUp(int rounds) {
                        return unavailable("Gave up after " + rounds + " rounds");
                    }
                }));
    }

    /** Records the tenure {@code claim} began with this run, and returns it. */
    LeaseClaim<F> began(LeaseClaim<F> claim) {
        run.tenures.add(claim.fence().tenure());
        return claim;
    }

    @Override
    public String scope() {
        return "sim";
    }

    @Override
    public String describe(LeaseClaim<F> held) {
        return store() + ", owner '" + run.node.owner + "'" + (held == null ? "" : ", " + held.block().describe());
    }

    @Override
    public MachineIdLeases leases(LongPredicate heldHere) {
        throw new UnsupportedOperationException("a model store has no operator's view");
    }

    @Override
    public Duration closeTimeout() {
        return Duration.ofSeconds(10);
    }

    static MachineIdUnavailableException unavailable(String message) {
        return new MachineIdUnavailableException(message);
    }

    /**
     * A renewal's or release's write at the store, all of the block's records or none: each gets {@code expiry} and
     * {@code highWater} if every one of them still carries {@code fence}; a write that lands moves its tenure's lease
     * end.
     */
    static <R extends Leased<R>, F extends Fenced> boolean writeBlock(Map<Long, R> records, MachineIdBlock block,
            F fence, FenceCheck<R, F> check, long expiry, long highWater) {
        for (int i = 0; i < block.size(); i++) {
            R record = records.get(block.first() + i);
            if (record == null || !check.carries(record, i, fence)) {
                return false;
            }
        }
        for (int i = 0; i < block.size(); i++) {
            records.put(block.first() + i, records.get(block.first() + i).written(expiry, highWater));
        }
        fence.tenure().landed(highWater);
        return true;
    }
}
