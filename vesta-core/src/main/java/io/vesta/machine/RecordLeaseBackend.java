package io.vesta.machine;

import io.vesta.time.TimeSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.function.LongPredicate;

/**
 * A {@link LeaseBackend} over a store that keeps one lease record per machine ID (the DB table's rows, the Redis hash's
 * entries; one key per machine ID would fit too): the claim walk ({@link LeaseClaimWalk}), the takeover's bookkeeping
 * (a generation above every record's, the high water taken over, the previous holder), why a renewal found the block
 * in other hands, the operator's view and its rules ({@link LeaseEnding}), and the messages of all of them. The store
 * adds only its fenced operations: read, take, the holder's write, an operator's end. Why each is safe is the store's
 * (docs/reliability.md, "Why the lease writes are safe").
 *
 * @param <F> what fences this node's writes
 * @param <R> a lease record
 * @param <S> one read of the store, for a claim
 */
public abstract class RecordLeaseBackend<F, R extends RecordLeaseBackend.Record, S> implements LeaseBackend<F> {

    /** A machine ID's lease record. */
    public interface Record extends LeaseClaimWalk.Record {
        /** Every ID its holder issued has a time before this. */
        long highWater();

        /** Moves on whenever the machine ID changes hands or its lease is ended. */
        long generation();
    }

    protected final String owner;
    protected final long leaseMillis;
    protected final TimeSource timeSource;
    private final String strategy;
    private final String place;
    private final String record;
    private final String records;
    private final System.Logger log;

    /**
     * @param strategy the provider's strategy in {@link #describe}: {@code "db"}
     * @param place    where the records are: {@code "table vesta_machine"}
     * @param record   one record in messages, and its plural: {@code "row"}, {@code "rows"}
     */
    protected RecordLeaseBackend(LeaseSettings settings, String strategy, String place, String record, String records,
            System.Logger log) {
        this.owner = settings.owner();
        this.leaseMillis = settings.lease().toMillis();
        this.timeSource = settings.timeSource();
        this.strategy = strategy;
        this.place = place;
        this.record = record;
        this.records = records;
        this.log = log;
    }

    /** Reads the store for a claim: at least the records of {@code range}. */
    protected abstract S read(MachineIdRange range) throws Exception;

    /** The records of {@code snapshot}, by machine ID. */
    protected abstract NavigableMap<Long, R> records(S snapshot);

    /**
     * Takes {@code next}'s block, whose records by offset are {@code block} (null where a machine ID has none), in one
     * write that succeeds only while every one of them is still as read: all of it or none.
     * @param next the claim to write, its fence the generation ({@link #claimOf})
     */
    protected abstract LeaseClaimWalk.Attempt<LeaseClaim<F>> take(S snapshot, LeaseClaim<Long> next, List<R> block,
            long now) throws Exception;

    /** The records of machine IDs {@code min} to {@code max}, by machine ID, as they are now: a read for a claim's. */
    protected NavigableMap<Long, R> read(long min, long max) throws Exception {
        return records(read(new MachineIdRange(min, max))).subMap(min, true, max, true);
    }

    /**
     * Ends, at {@code now}, the live lease of the block {@code record} belongs to, in one write that matches only while
     * the block is still under the lease read, keeping its high water.
     * @return how many records it ended: 0 when the lease changed after it was read
     */
    protected abstract long end(R record, long now) throws Exception;

    /** Whether {@code record} is still written under {@code fence}. */
    protected abstract boolean carries(R record, F fence);

    /** The generation {@code fence} was claimed under. */
    protected abstract long generation(F fence);

    /** What became of a record that is missing, for a lost lease's reason: {@code "was deleted"}. */
    protected String gone() {
        return "was deleted";
    }

    /** The store in {@link MachineIdLeases#describe()}. */
    protected String view() {
        return store();
    }

    @Override
    public String store() {
        return place;
    }

    @Override
    public String describe(LeaseClaim<F> held) {
        String from = held == null ? null : held.takenFrom();
        return strategy + " (" + place + ", owner '" + owner + "'" + (from != null ? ", taken over from '" + from + "'"
                : "") + ")";
    }

    @Override
    public LeaseClaim<F> claim(MachineIdRange range, int blockSize, boolean startUp) throws Exception {
        return LeaseClaimWalk.claim(range, blockSize, owner, startUp, timeSource,
                new LeaseClaimWalk.Store<S, R, LeaseClaim<F>, Exception>() {
                    @Override
                    public S read() throws Exception {
                        return RecordLeaseBackend.this.read(range);
                    }

                    @Override
                    public NavigableMap<Long, R> records(S snapshot) {
                        return RecordLeaseBackend.this.records(snapshot);
                    }

                    @Override
                    public LeaseClaimWalk.Attempt<LeaseClaim<F>> take(S snapshot, long first, List<R> block, long now)
                            throws Exception {
                        return RecordLeaseBackend.this.take(snapshot, claimOf(first, block, now + leaseMillis), block,
                                now);
                    }

                    @Override
                    public RuntimeException rangeFull(MachineIdRange range, int blockSize, Collection<R> in,
                            long now) {
                        return RecordLeaseBackend.this.rangeFull(range, blockSize, in, now);
                    }

                    @Override
                    public RuntimeException gaveUp(int rounds) {
                        return new MachineIdUnavailableException("Gave up leasing " + blocks(blockSize) + " from "
                                + store() + " (range " + range + ") after " + rounds + " rounds in which every"
                                + " candidate changed before this node could take it (other nodes claiming the same"
                                + " IDs, or a live process of owner '" + owner + "' renewing its " + record + ")");
                    }
                });
    }

    private static String blocks(int blockSize) {
        return blockSize == 1 ? "a machine ID" : "a block of " + blockSize + " machine IDs";
    }

    private MachineIdUnavailableException rangeFull(MachineIdRange range, int blockSize, Iterable<R> inRange,
            long now) {
        long live = 0;
        long nextExpiry = Long.MAX_VALUE;
        for (R r : inRange) {
            if (r.leaseExpiry() > now) {
                live++;
                nextExpiry = Math.min(nextExpiry, r.leaseExpiry());
            }
        }
        String firstEnd = "the first lease ends at " + Instant.ofEpochMilli(live == 0 ? now : nextExpiry);
        if (blockSize == 1) {
            return new MachineIdUnavailableException("No machine ID is free in range " + range + " of " + store() + ": "
                    + live + " " + records + " hold a live lease on all " + range.size() + " IDs of the range ("
                    + firstEnd + "). Stop a node, widen the range, or wait for a lease to end.");
        }
        long blocks = range.blocks(blockSize);
        return new MachineIdUnavailableException("No block of " + blockSize + " machine IDs is free in range " + range
                + " of " + store() + ": the range holds " + blocks + " blocks of " + blockSize + " (so " + blocks
                + " nodes with this block size), and each has a live lease on at least one of its IDs (" + live
                + " live " + records + "; " + firstEnd + "). Stop a node, widen the range, lower the block size, or"
                + " wait for a lease to end.");
    }

    /**
     * What a take of the block starting at {@code first}, whose records are {@code block}, writes until
     * {@code expiry}: a generation above each record's, so that no write conditional on an older one matches again;
     * the highest high water among them, which its IDs start after; the first other owner, for messages.
     */
    private LeaseClaim<Long> claimOf(long first, List<R> block, long expiry) {
        long generation = 1;
        Long notBefore = null;
        String from = null;
        for (R r : block) {
            if (r != null) {
                generation = Math.max(generation, r.generation() + 1);
                notBefore = notBefore == null ? r.highWater() : Math.max(notBefore, r.highWater());
                if (from == null && !r.owner().equals(owner)) {
                    from = r.owner();
                }
            }
        }
        return new LeaseClaim<>(new MachineIdBlock(first, block.size()), expiry, notBefore, from, generation);
    }

    /**
     * Why a write under {@code held}'s fence found its block in other hands, from its records as they are now: the
     * first that is gone or no longer under the fence, ended from outside (this owner's and no longer live, so not a
     * restart of ours, which would hold a live lease) or taken over.
     */
    protected String lostReason(LeaseClaim<F> held) {
        MachineIdBlock block = held.block();
        NavigableMap<Long, R> now;
        try {
            now = read(block.first(), block.last());
        } catch (Exception e) {
            return "a " + record + " of " + block.describe() + " in " + store() + " is no longer under this node's"
                    + " fence (it could not be read again: " + LeasedMachineIdProvider.reason(e) + ")";
        }
        long generation = generation(held.fence());
        for (long id = block.first(); id <= block.last(); id++) {
            R r = now.get(id);
            String which = block.size() == 1 ? "its " + record
                    : "the " + record + " of machine ID " + id + " of its block " + block;
            String it = block.size() == 1 ? "it" : which;
            if (r == null) {
                return which + " in " + store() + " " + gone();
            }
            if (carries(r, held.fence())) {
                continue;
            }
            String generations = " (generation " + r.generation() + ", this node held generation " + generation
                    + ")";
            if (r.generation() <= generation) {
                return store() + " shows " + it + " held by owner '" + r.owner() + "' under another fence"
                        + generations + ": written anew after the store lost this node's " + record;
            }
            if (r.owner().equals(owner) && r.leaseExpiry() <= timeSource.currentTimeMillis()) {
                return "its lease on " + it + " in " + store() + " was ended by another process" + generations
                        + ": an operator's release (DELETE /vesta/admin/leases) or another process of owner '" + owner
                        + "'";
            }
            return store() + " shows " + it + " taken over by owner '" + r.owner() + "'" + generations
                    + " after this node could not renew its lease in time";
        }
        return "a " + record + " of " + block.describe() + " in " + store() + " changed hands while this node renewed"
                + " its lease";
    }

    @Override
    public String unreleased(LeaseClaim<F> held, long lastWrittenExpiry) {
        return (held.block().size() == 1 ? "the " + record + " becomes free by itself when its lease ends"
                : "the " + records + " become free by themselves when their lease ends")
                + " (the last expiry this node wrote is " + Instant.ofEpochMilli(lastWrittenExpiry) + ")";
    }

    /** The records for an operator, and ending a lease by the rules of {@link LeaseEnding}. */
    @Override
    public MachineIdLeases leases(LongPredicate heldHere) {
        return new MachineIdLeases() {
            @Override
            public String describe() {
                return view();
            }

            @Override
            public List<MachineIdLeaseInfo> list(MachineIdRange range) {
                NavigableMap<Long, R> read = readFor("read the leases of range " + range + " from", range.min(),
                        range.max());
                long now = timeSource.currentTimeMillis();
                List<MachineIdLeaseInfo> leases = new ArrayList<>((int) range.size());
                for (long id = range.min(); id <= range.max(); id++) {
                    leases.add(info(read.get(id), id, now, heldHere));
                }
                return leases;
            }

            @Override
            public Released release(long machineId, boolean force) {
                long now = timeSource.currentTimeMillis();
                R r = readFor("end the lease on machine ID " + machineId + " in", machineId, machineId).get(machineId);
                if (r == null) {
                    throw new IllegalArgumentException(Character.toUpperCase(store().charAt(0)) + store().substring(1)
                            + " has no lease on machine ID " + machineId + ": it was never leased, so any node may"
                            + " take it");
                }
                MachineIdLeaseInfo before = info(r, machineId, now, heldHere);
                Released unchanged = LeaseEnding.check(before, force);
                if (unchanged != null) {
                    return unchanged;
                }
                long ended;
                try {
                    ended = end(r, now);
                } catch (Exception e) {
                    throw unavailable("end the lease on machine ID " + machineId + " in", e);
                }
                if (ended == 0) {
                    throw LeaseEnding.changed(machineId);
                }
                R after = readFor("read the lease on machine ID " + machineId + " from", machineId, machineId)
                        .get(machineId);
                return LeaseEnding.ended(before, info(after, machineId, now, heldHere), ended, records, store(), log);
            }
        };
    }

    private NavigableMap<Long, R> readFor(String what, long min, long max) {
        try {
            return read(min, max);
        } catch (Exception e) {
            throw unavailable(what, e);
        }
    }

    /** {@code e} as is when it says what it is already, else "Cannot {@code what} {@link #store()}". */
    private MachineIdUnavailableException unavailable(String what, Exception e) {
        return e instanceof MachineIdUnavailableException u ? u
                : new MachineIdUnavailableException("Cannot " + what + " " + store() + ": "
                        + LeasedMachineIdProvider.reason(e), e);
    }

    private static MachineIdLeaseInfo info(Record r, long machineId, long now, LongPredicate heldHere) {
        if (r == null) {
            return MachineIdLeaseInfo.free(machineId);
        }
        return new MachineIdLeaseInfo(machineId, r.leaseExpiry() > now ? MachineIdLeaseInfo.State.LIVE
                : MachineIdLeaseInfo.State.EXPIRED, r.owner(), Instant.ofEpochMilli(r.leaseExpiry()),
                Instant.ofEpochMilli(r.highWater()), r.generation(), heldHere.test(machineId));
    }
}
