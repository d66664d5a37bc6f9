package io.vesta.machine;

import io.vesta.time.TimeSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.function.LongPredicate;

/**
 * The operator's view of a store that keeps one lease record per machine ID (the DB table, the Redis hash): the
 * records of a range as {@link MachineIdLeaseInfo}, and ending a lease by the rules of {@link LeaseEnding}. What makes
 * the end safe, a write that matches only the block of the record as read, is the store's ({@link Store#end}). And
 * what such a store writes to claim a block ({@link #claim}) and why a renewal found a block in other hands
 * ({@link #lostTo}).
 *
 * @param <R> a lease record
 */
public final class RecordLeases<R extends RecordLeases.Record> implements MachineIdLeases {

    /** A machine ID's lease record, as an operator sees it. */
    public interface Record extends LeaseClaimWalk.Record {
        /** Every ID its holder issued has a time before this. */
        long highWater();

        /** Moves on whenever the machine ID changes hands or its lease is ended. */
        long generation();
    }

    /** The store's side. */
    public interface Store<R extends Record> {

        /** The records of machine IDs {@code min} to {@code max}, by machine ID. */
        NavigableMap<Long, R> read(long min, long max) throws Exception;

        /**
         * Ends, at {@code now}, the live lease of the block {@code record} belongs to, in one write that matches only
         * while the block is still under the lease read (its generation or token), keeping its high water.
         * @return how many records it ended: 0 when the lease changed after it was read
         */
        long end(R record, long now) throws Exception;
    }

    /**
     * What a record store writes to take the block starting at {@code first}, whose records are {@code block} (null
     * where a machine ID has none), for {@code owner} until {@code expiry}: a generation above each record's, so that
     * no write conditional on an older one matches again; the highest high water among them, which its IDs start
     * after; the first other owner, for messages.
     * @return the claim, its fence the generation
     */
    public static LeaseClaim<Long> claim(long first, List<? extends Record> block, String owner, long expiry) {
        long generation = 1;
        Long notBefore = null;
        String from = null;
        for (Record record : block) {
            if (record != null) {
                generation = Math.max(generation, record.generation() + 1);
                notBefore = notBefore == null ? record.highWater() : Math.max(notBefore, record.highWater());
                if (from == null && !record.owner().equals(owner)) {
                    from = record.owner();
                }
            }
        }
        return new LeaseClaim<>(new MachineIdBlock(first, block.size()), expiry, notBefore, from, generation);
    }

    /**
     * Why a renewal of generation {@code held} found {@code record} under a later one: ended from outside (this owner's
     * and no longer live, so not a restart of ours, which would hold a live lease) or taken over. Null when its
     * generation has not moved past {@code held}.
     * @param it the record in the message: {@code "it"}, {@code "the row of machine ID 5 of its block 4-7"}
     */
    public static String lostTo(String store, String it, Record record, long held, String owner, long now) {
        if (record.generation() <= held) {
            return null;
        }
        if (record.owner().equals(owner) && record.leaseExpiry() <= now) {
            return "its lease on " + it + " in " + store + " was ended by another process (generation "
                    + record.generation() + ", this node held generation " + held + "): an operator's release"
                    + " (DELETE /vesta/admin/leases) or another process of owner '" + owner + "'";
        }
        return store + " shows " + it + " taken over by owner '" + record.owner() + "' (generation "
                + record.generation() + ", this node held generation " + held + ") after this node could not renew"
                + " its lease in time";
    }

    private final Store<R> store;
    private final String describe;
    private final String name;
    private final String records;
    private final TimeSource timeSource;
    private final LongPredicate heldHere;
    private final System.Logger log;

    /**
     * @param describe what {@link #describe()} says: {@code "table vesta_machine"}
     * @param name     the store in messages: {@code "table vesta_machine"}
     * @param records  its records, plural: {@code "rows"}, {@code "entries"}
     * @param heldHere whether this process holds a machine ID: such a lease is never ended from here
     */
    public RecordLeases(Store<R> store, String describe, String name, String records, TimeSource timeSource,
            LongPredicate heldHere, System.Logger log) {
        this.store = store;
        this.describe = describe;
        this.name = name;
        this.records = records;
        this.timeSource = timeSource;
        this.heldHere = heldHere;
        this.log = log;
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public List<MachineIdLeaseInfo> list(MachineIdRange range) {
        NavigableMap<Long, R> read = read(range.min(), range.max(), "read the leases of range " + range + " from");
        long now = timeSource.currentTimeMillis();
        List<MachineIdLeaseInfo> leases = new ArrayList<>((int) range.size());
        for (long id = range.min(); id <= range.max(); id++) {
            leases.add(info(read.get(id), id, now));
        }
        return leases;
    }

    @Override
    public Released release(long machineId, boolean force) {
        long now = timeSource.currentTimeMillis();
        R record = read(machineId, machineId, "end the lease on machine ID " + machineId + " in").get(machineId);
        if (record == null) {
            throw new IllegalArgumentException(Character.toUpperCase(name.charAt(0)) + name.substring(1)
                    + " has no lease on machine ID " + machineId + ": it was never leased, so any node may take it");
        }
        MachineIdLeaseInfo before = info(record, machineId, now);
        Released unchanged = LeaseEnding.check(before, force);
        if (unchanged != null) {
            return unchanged;
        }
        long ended;
        try {
            ended = store.end(record, now);
        } catch (Exception e) {
            throw unavailable("end the lease on machine ID " + machineId + " in", e);
        }
        if (ended == 0) {
            throw LeaseEnding.changed(machineId);
        }
        R after = read(machineId, machineId, "read the lease on machine ID " + machineId + " from").get(machineId);
        return LeaseEnding.ended(before, info(after, machineId, now), ended, records, name, log);
    }

    private NavigableMap<Long, R> read(long min, long max, String what) {
        try {
            return store.read(min, max);
        } catch (Exception e) {
            throw unavailable(what, e);
        }
    }

    /** {@code e} as is when it says what it is already, else "Cannot {@code what} {@code name}". */
    private MachineIdUnavailableException unavailable(String what, Exception e) {
        return e instanceof MachineIdUnavailableException u ? u
                : new MachineIdUnavailableException("Cannot " + what + " " + name + ": " + e.getMessage(), e);
    }

    private MachineIdLeaseInfo info(R record, long machineId, long now) {
        if (record == null) {
            return MachineIdLeaseInfo.free(machineId);
        }
        return new MachineIdLeaseInfo(machineId, record.leaseExpiry() > now ? MachineIdLeaseInfo.State.LIVE
                : MachineIdLeaseInfo.State.EXPIRED, record.owner(), Instant.ofEpochMilli(record.leaseExpiry()),
                Instant.ofEpochMilli(record.highWater()), record.generation(), heldHere.test(machineId));
    }
}
