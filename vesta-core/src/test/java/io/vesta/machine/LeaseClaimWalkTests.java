package io.vesta.machine;

import io.vesta.machine.LeaseClaimWalk.Attempt;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The claim walk on a store of the test's own: which block it picks (the owner's first, else the first free one in the
 * range's order: the lowest for an ascending range, the top whole block for a descending one),
 * when it reads again, and how it gives up. Each store read is a copy, so a take compares what was read with what is
 * there now, the way the DB table and the Redis hash fence their writes.
 */
class LeaseClaimWalkTests {

    private static final long NOW = 1_000_000;
    private static final long LIVE = NOW + 30_000;
    private static final long ENDED = NOW - 1;
    private static final MachineIdRange RANGE = new MachineIdRange(10, 17);

    private record Rec(long machineId, String owner, long leaseExpiry) implements LeaseClaimWalk.Record {
    }

    /** What a claim returns: the first machine ID of the block taken. */
    private record Claim(long first) {
    }

    /** A store of records by machine ID; {@code interference} may change it or refuse the n-th take. */
    private static final class MapStore implements LeaseClaimWalk.Store<NavigableMap<Long, Rec>, Rec, Claim, RuntimeException> {
        final NavigableMap<Long, Rec> records = new TreeMap<>();
        final String claimant;
        int reads;
        final List<Long> tried = new ArrayList<>();
        IntFunction<Attempt<Claim>> interference = take -> null;

        MapStore(String claimant) {
            this.claimant = claimant;
        }

        MapStore with(long machineId, String owner, long expiry) {
            records.put(machineId, new Rec(machineId, owner, expiry));
            return this;
        }

        @Override
        public NavigableMap<Long, Rec> read() {
            reads++;
            return new TreeMap<>(records);
        }

        @Override
        public NavigableMap<Long, Rec> records(NavigableMap<Long, Rec> snapshot) {
            return snapshot;
        }

        @Override
        public Attempt<Claim> take(NavigableMap<Long, Rec> snapshot, long first, List<Rec> block, long now) {
            tried.add(first);
            Attempt<Claim> forced = interference.apply(tried.size());
            if (forced != null) {
                return forced;
            }
            for (int offset = 0; offset < block.size(); offset++) {
                if (!Objects.equals(records.get(first + offset), block.get(offset))) {
                    return Attempt.lost();
                }
            }
            for (int offset = 0; offset < block.size(); offset++) {
                records.put(first + offset, new Rec(first + offset, claimant, now + 30_000));
            }
            return Attempt.taken(new Claim(first));
        }

        @Override
        public RuntimeException rangeFull(MachineIdRange range, int blockSize, Collection<Rec> inRange, long now) {
            return new IllegalStateException("full: " + range + " blocks of " + blockSize + ", " + inRange.size()
                    + " records");
        }

        @Override
        public RuntimeException gaveUp(int rounds) {
            return new IllegalStateException("gave up after " + rounds);
        }
    }

    private static final TimeSource AT_NOW = new TimeSource() {
        @Override
        public long currentTimeMillis() {
            return NOW;
        }

        @Override
        public boolean sleepUntil(long epochMillis, long maxNanos) {
            throw new AssertionError("the walk never waits");
        }
    };

    private static long claim(MapStore store, int blockSize, boolean takeOwnLive) {
        return claim(RANGE, store, blockSize, takeOwnLive);
    }

    private static long claim(MachineIdRange range, MapStore store, int blockSize, boolean takeOwnLive) {
        return LeaseClaimWalk.claim(range, blockSize, store.claimant, takeOwnLive, AT_NOW, store).first();
    }

    @Test
    void anEmptyRangeGivesItsLowestBlock() {
        MapStore store = new MapStore("a");

        assertThat(claim(store, 1, true)).isEqualTo(10);
        assertThat(claim(new MapStore("a"), 4, true)).isEqualTo(10);
        assertThat(store.reads).isEqualTo(1);
    }

    @Test
    void theLowestBlockWhoseEveryMachineIdIsFreeWinsAndEndedLeasesAreFree() {
        MapStore store = new MapStore("a")
                .with(10, "b", LIVE)
                .with(12, "c", ENDED)
                .with(13, "d", LIVE);

        assertThat(claim(store, 1, true)).as("11 has no record").isEqualTo(11);
        assertThat(claim(store, 2, true)).as("block 10-11 has b's live lease, 12-13 d's: 14-15").isEqualTo(14);
        MapStore ended = new MapStore("a").with(10, "b", LIVE).with(12, "c", ENDED);
        assertThat(claim(ended, 2, true)).as("12 ended, 13 has no record").isEqualTo(12);
    }

    @Test
    void recordsOutsideTheRangeAreNotLookedAt() {
        MapStore store = new MapStore("a")
                .with(9, "a", LIVE)
                .with(18, "a", LIVE)
                .with(10, "b", LIVE);

        assertThat(claim(store, 1, true)).isEqualTo(11);
    }

    @Test
    void atStartUpTheOwnersBlockComesBackEvenWhileItsLeaseRuns() {
        MapStore store = new MapStore("a")
                .with(10, "b", ENDED)
                .with(14, "a", LIVE);

        assertThat(claim(store, 1, true)).as("a previous run of this node").isEqualTo(14);
        MapStore blocks = new MapStore("a").with(15, "a", LIVE);
        assertThat(claim(blocks, 2, true)).as("the block the owner's record lies in").isEqualTo(14);
    }

    @Test
    void afterALossTheOwnersLiveBlockIsAnotherProcesssAndTheWalkGoesOn() {
        MapStore live = new MapStore("a").with(14, "a", LIVE);
        assertThat(claim(live, 1, false)).isEqualTo(10);

        MapStore ended = new MapStore("a").with(10, "b", ENDED).with(14, "a", ENDED);
        assertThat(claim(ended, 1, false)).as("once its lease ended the owner's block comes first again")
                .isEqualTo(14);
    }

    @Test
    void anOwnersBlockPartlyHeldByAnotherNodeIsPassedOver() {
        MapStore store = new MapStore("a")
                .with(14, "a", LIVE)
                .with(15, "b", LIVE);

        assertThat(claim(store, 2, true)).isEqualTo(10);
        assertThat(store.tried).containsExactly(10L);
    }

    @Test
    void aLostRaceTriesTheNextCandidateOfTheSameRead() {
        MapStore store = new MapStore("a");
        store.interference = take -> {
            if (take == 1) {
                store.with(10, "b", LIVE); // another node was first
            }
            return null;
        };

        assertThat(claim(store, 1, true)).isEqualTo(11);
        assertThat(store.tried).containsExactly(10L, 11L);
        assertThat(store.reads).isEqualTo(1);
    }

    @Test
    void fourLostRacesOnOneReadMeanReadingAgain() {
        MapStore store = new MapStore("a");
        store.interference = take -> take <= 4 ? Attempt.lost() : null;

        assertThat(claim(store, 1, true)).as("the fresh read starts at the lowest block again").isEqualTo(10);
        assertThat(store.tried).containsExactly(10L, 11L, 12L, 13L, 10L);
        assertThat(store.reads).isEqualTo(2);
    }

    @Test
    void aStaleSnapshotIsReadAgainAtOnce() {
        MapStore store = new MapStore("a");
        store.interference = take -> take == 1 ? Attempt.stale() : null;

        assertThat(claim(store, 1, true)).isEqualTo(10);
        assertThat(store.tried).containsExactly(10L, 10L);
        assertThat(store.reads).isEqualTo(2);
    }

    @Test
    void anOwnersBlockThatChangedAfterTheReadIsReadAgainRatherThanLeft() {
        MapStore store = new MapStore("a").with(14, "a", LIVE);
        store.interference = take -> {
            if (take == 1) {
                store.with(14, "a", LIVE + 5_000); // the previous run renewed it meanwhile
            }
            return null;
        };

        assertThat(claim(store, 1, true)).as("its own IDs back, not the free block 10").isEqualTo(14);
        assertThat(store.tried).containsExactly(14L, 14L);
        assertThat(store.reads).isEqualTo(2);
    }

    @Test
    void aRangeWithNoFreeBlockIsFullWithoutATake() {
        MapStore store = new MapStore("a");
        for (long id = RANGE.min(); id <= RANGE.max(); id += 2) {
            store.with(id, "b" + id, LIVE); // one live lease in every block of two
        }

        assertThatThrownBy(() -> claim(store, 2, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("full: " + RANGE + " blocks of 2, 4 records");
        assertThat(store.tried).isEmpty();
        assertThat(claim(store, 1, true)).as("single IDs still fit").isEqualTo(11);
    }

    @Test
    void aStoreThatChangesUnderEveryTakeIsGivenUpOnAfterTheBlocksPlusSixteenRounds() {
        MapStore store = new MapStore("a");
        store.interference = take -> Attempt.stale();

        assertThatThrownBy(() -> claim(store, 2, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("gave up after " + (RANGE.blocks(2) + 16));
        assertThat(store.reads).isEqualTo(RANGE.blocks(2) + 16);
    }

    @Test
    void aDescendingRangeGivesItsTopWholeBlockFirstAndWalksDown() {
        MachineIdRange down = RANGE.inOrder(MachineIdRange.Order.DESCENDING);
        MapStore store = new MapStore("a").with(17, "b", LIVE).with(15, "c", ENDED);

        assertThat(claim(down, new MapStore("a"), 1, true)).isEqualTo(17);
        assertThat(claim(down, store, 1, true)).as("17 is b's; 16 has no record").isEqualTo(16);
        assertThat(claim(down, store, 2, true)).as("16-17 is b's, 14-15 free once c's lease ended").isEqualTo(14);
        // Blocks stay aligned from the range start: 10-12 holds one block of 2 and a remainder of 1, never 11-12.
        MachineIdRange odd = new MachineIdRange(10, 12, MachineIdRange.Order.DESCENDING);
        assertThat(claim(odd, new MapStore("a"), 2, true)).isEqualTo(10);
    }

    @Test
    void theOwnersBlockWinsOverTheOrder() {
        MachineIdRange down = RANGE.inOrder(MachineIdRange.Order.DESCENDING);

        assertThat(claim(down, new MapStore("a").with(11, "a", LIVE), 1, true)).as("a previous run, at start-up")
                .isEqualTo(11);
        assertThat(claim(down, new MapStore("a").with(11, "a", ENDED), 1, false)).as("after a loss, once ended")
                .isEqualTo(11);
    }

    @Test
    void aNodeWhoseRangeNoLongerHoldsItsBlockTakesOneOfItsNewRangeAndNeverALiveLease() {
        // The boundary moved: servers went from 10-17 to 14-17 while "a" held 11 and "b" held 17 live.
        MachineIdRange narrowed = new MachineIdRange(14, 17, MachineIdRange.Order.DESCENDING);
        MapStore store = new MapStore("a").with(11, "a", LIVE).with(17, "b", LIVE);

        assertThat(claim(narrowed, store, 1, true)).as("its old block is outside its range now").isEqualTo(16);
        assertThat(store.tried).containsExactly(16L);

        // Embedded nodes widened from 0-9 to 0-15 while the servers still hold 14-17: the walk passes over the
        // live leases of the other kind and takes only what is free.
        MapStore shared = new MapStore("e").with(14, "s1", LIVE).with(15, "s2", LIVE);
        for (long id = 0; id <= 12; id++) {
            shared.with(id, "e" + id, LIVE);
        }
        MachineIdRange widened = new MachineIdRange(0, 15);
        assertThat(claim(widened, shared, 1, true)).isEqualTo(13);
        shared.with(13, "e13", LIVE);
        assertThatThrownBy(() -> claim(widened, shared, 1, true)).as("every ID is leased, 14 and 15 by the servers")
                .isInstanceOf(IllegalStateException.class).hasMessage("full: 0-15 blocks of 1, 16 records");
    }
}
