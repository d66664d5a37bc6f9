package io.vesta.machine;

import io.vesta.time.TimeSource;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;

/**
 * How a provider whose shared store keeps one lease record per machine ID (the DB table, the Redis hash) picks the
 * block it claims: its owner's block first, so that a restart gets its IDs back, else the first block, in the range's
 * {@link MachineIdRange#order() order} (embedded nodes from the bottom up, servers from the top down), whose every
 * machine ID is free (no record, or a lease that has ended). The owner's block counts only while it lies in the range:
 * a node restarted with a range that no longer holds its old block takes a block of its new range, and a block with
 * another node's live lease is never taken, whichever range that node was configured with. What makes a claim safe,
 * a write that takes the records only if they are still exactly as read, is the store's ({@link Store#take}); the walk
 * only reads again whenever a snapshot is known to be stale.
 */
public final class LeaseClaimWalk {

    /** Lost races on one snapshot before it is read again: others are claiming too, and a fresh read skips them all. */
    private static final int LOST_RACES_PER_SNAPSHOT = 4;

    private LeaseClaimWalk() {
    }

    /** A machine ID's lease record, as the walk judges it. */
    public interface Record {
        long machineId();

        String owner();

        /** When the lease ends (or ended), by its holder's clock. */
        long leaseExpiry();
    }

    /** What one attempt to take a block came to. */
    public record Attempt<C>(C claim, boolean readAgain) {

        public static <C> Attempt<C> taken(C claim) {
            return new Attempt<>(claim, false);
        }

        /** Another node was first: the next candidate of this snapshot may still be free. */
        public static <C> Attempt<C> lost() {
            return new Attempt<>(null, false);
        }

        /** The store changed in a way that makes the whole snapshot stale. */
        public static <C> Attempt<C> stale() {
            return new Attempt<>(null, true);
        }
    }

    /** The store's side of the walk: {@code S} one read of it, {@code R} a record, {@code C} a claim. */
    public interface Store<S, R extends Record, C, X extends Exception> {

        /** Reads the records (at least those of the range). */
        S read() throws X;

        /** The records of {@code snapshot}, by machine ID. */
        NavigableMap<Long, R> records(S snapshot);

        /**
         * Takes the block starting at {@code first}, whose records by offset are {@code block} (null where a machine ID
         * has none), if they are still as read; all of them or none.
         */
        Attempt<C> take(S snapshot, long first, List<R> block, long now) throws X;

        /** No block of the range is free: the error, with the figures of {@code inRange}. */
        RuntimeException rangeFull(MachineIdRange range, int blockSize, Collection<R> inRange, long now);

        /** Every candidate changed before it could be taken, {@code rounds} times. */
        RuntimeException gaveUp(int rounds);
    }

    /**
     * Claims a block of {@code blockSize} machine IDs of {@code range} for {@code owner}. At start-up
     * ({@code takeOwnLive}) the owner's block is taken even while its lease runs: it is a previous run of this node.
     * After a loss it is not: a live lease of the owner is then another process's (the one that took the block over),
     * and taking it back would only take turns with it; the owner's block still comes first once its lease has ended.
     */
    public static <S, R extends Record, C, X extends Exception> C claim(MachineIdRange range, int blockSize, String owner,
            boolean takeOwnLive, TimeSource timeSource, Store<S, R, C, X> store) throws X {
        long blocks = range.blocks(blockSize);
        int maxRounds = (int) blocks + 16;
        rounds:
        for (int round = 0; round < maxRounds; round++) {
            long now = timeSource.currentTimeMillis();
            S snapshot = store.read();
            NavigableMap<Long, R> inRange = store.records(snapshot).subMap(range.min(), true, range.max(), true);
            for (R record : inRange.values()) {
                long index = range.blockIndex(record.machineId(), blockSize);
                if (record.owner().equals(owner) && index < blocks) {
                    List<R> block = block(inRange, range.blockStart(index, blockSize), blockSize);
                    if (!takeable(block, now, takeOwnLive ? owner : null)) {
                        continue; // another node holds part of the block this owner's record lies in
                    }
                    Attempt<C> own = store.take(snapshot, range.blockStart(index, blockSize), block, now);
                    if (own.claim() != null) {
                        return own.claim();
                    }
                    // The block changed after it was read: the previous run renewed it (it is still alive) or another
                    // node took part of it. Read it again rather than walk a snapshot known to be stale, so that a
                    // restart still gets its own IDs back, after the high water committed now.
                    continue rounds;
                }
            }
            int lostRaces = 0;
            boolean anyCandidate = false;
            for (long rank = 0; rank < blocks && lostRaces < LOST_RACES_PER_SNAPSHOT; rank++) {
                long index = range.blockInOrder(rank, blockSize);
                List<R> block = block(inRange, range.blockStart(index, blockSize), blockSize);
                if (!takeable(block, now, null)) {
                    continue;
                }
                anyCandidate = true;
                Attempt<C> attempt = store.take(snapshot, range.blockStart(index, blockSize), block, now);
                if (attempt.claim() != null) {
                    return attempt.claim();
                }
                if (attempt.readAgain()) {
                    continue rounds;
                }
                lostRaces++;
            }
            if (!anyCandidate) {
                throw store.rangeFull(range, blockSize, inRange.values(), now);
            }
        }
        throw store.gaveUp(maxRounds);
    }

    /** The records of the block starting at {@code first}, by offset; null where a machine ID has none. */
    private static <R extends Record> List<R> block(NavigableMap<Long, R> records, long first, int blockSize) {
        List<R> block = new ArrayList<>(blockSize);
        for (int offset = 0; offset < blockSize; offset++) {
            block.add(records.get(first + offset));
        }
        return block;
    }

    /** Whether every machine ID of the block is free: no record, a lease that has ended, or (with an owner) its own. */
    private static boolean takeable(List<? extends Record> block, long now, String owner) {
        for (Record record : block) {
            if (record != null && record.leaseExpiry() > now && !record.owner().equals(owner)) {
                return false;
            }
        }
        return true;
    }
}
