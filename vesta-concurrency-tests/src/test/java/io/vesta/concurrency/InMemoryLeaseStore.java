package io.vesta.concurrency;

import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseClaim;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongPredicate;

/**
 * A lease table in memory, shared by the providers of a scenario: one row per block, every write a compare-and-set on
 * the row's generation (the fence), and a block free once its expiry is not after the store's clock. Each call is
 * atomic and returns at once, so every interleaving the scheduler explores is one of the engine's, not of the store.
 */
final class InMemoryLeaseStore {

    /** A block's row: who holds it, the generation that fences the next write, until when, and its high water. */
    record Row(String owner, long generation, long expiry, long highWater, boolean released) {
    }

    /** A release the store accepted: the block, its owner, the store's time and the high water written. */
    record Release(long block, String owner, long at, long highWater) {
    }

    /** A block that changed owners: whoever takes it starts after {@code notBefore}, the high water it found. */
    record Takeover(long block, String from, String to, long notBefore) {
    }

    private final StepClock clock;
    private final long leaseMillis;
    private final Map<Long, Row> rows = new HashMap<>();
    private final List<Release> releases = new ArrayList<>();
    private final List<Takeover> takeovers = new ArrayList<>();
    private final List<String> misuse = new ArrayList<>();

    InMemoryLeaseStore(StepClock clock, Duration lease) {
        this.clock = clock;
        this.leaseMillis = lease.toMillis();
    }

    /** The backend of one provider, whose owner is {@code owner}. */
    Backend backend(String owner) {
        return new Backend(owner);
    }

    synchronized Row row(long block) {
        return rows.get(block);
    }

    synchronized List<Release> releases() {
        return List.copyOf(releases);
    }

    synchronized List<Takeover> takeovers() {
        return List.copyOf(takeovers);
    }

    /** What a backend was asked against the SPI's contract: two calls at once, a call after close. */
    synchronized List<String> misuse() {
        return List.copyOf(misuse);
    }

    /** Another node takes {@code block} over, as an operator's forced release followed by a claim would. */
    synchronized void takeOver(long block, String owner) {
        Row row = rows.get(block);
        long now = clock.currentTimeMillis();
        long highWater = row == null ? now : Math.max(row.highWater(), now);
        if (row != null && !row.owner().equals(owner)) {
            takeovers.add(new Takeover(block, row.owner(), owner, highWater));
        }
        rows.put(block, new Row(owner, row == null ? 1 : row.generation() + 1, now + leaseMillis,
                Math.max(highWater, now + leaseMillis), false));
    }

    private synchronized LeaseClaim<Long> claim(String owner, MachineIdRange range, int blockSize, boolean startUp) {
        long now = clock.currentTimeMillis();
        Long chosen = null;
        for (long first = range.min(); first + blockSize - 1 <= range.max(); first += blockSize) {
            Row row = rows.get(first);
            if (row != null && row.owner().equals(owner) && (startUp || row.expiry() <= now)) {
                chosen = first;
                break;
            }
        }
        for (long first = range.min(); chosen == null && first + blockSize - 1 <= range.max(); first += blockSize) {
            Row row = rows.get(first);
            if (row == null || row.expiry() <= now) {
                chosen = first;
            }
        }
        if (chosen == null) {
            throw new MachineIdUnavailableException("every block of " + range + " is leased");
        }
        Row before = rows.get(chosen);
        long expiry = now + leaseMillis;
        Long notBefore = before == null ? null : before.highWater();
        long generation = before == null ? 1 : before.generation() + 1;
        rows.put(chosen, new Row(owner, generation, expiry, Math.max(expiry, notBefore == null ? expiry : notBefore),
                false));
        String takenFrom = before == null || before.owner().equals(owner) ? null : before.owner();
        if (takenFrom != null) {
            takeovers.add(new Takeover(chosen, takenFrom, owner, notBefore));
        }
        return new LeaseClaim<>(new MachineIdBlock(chosen, blockSize), expiry, notBefore, takenFrom, generation);
    }

    private synchronized LeaseBackend.Renewal<Long> renew(String owner, LeaseClaim<Long> held, long expiry,
            long highWater) {
        Row row = rows.get(held.block().first());
        if (row == null || row.generation() != held.fence() || !row.owner().equals(owner)) {
            return LeaseBackend.Renewal.lost("the row is at generation " + (row == null ? 0 : row.generation())
                    + " of owner '" + (row == null ? null : row.owner()) + "', not " + held.fence());
        }
        rows.put(held.block().first(), new Row(owner, row.generation() + 1, expiry, highWater, false));
        return LeaseBackend.Renewal.renewed(row.generation() + 1);
    }

    private synchronized boolean release(String owner, LeaseClaim<Long> held, long now, long highWater) {
        Row row = rows.get(held.block().first());
        if (row == null || row.generation() != held.fence() || !row.owner().equals(owner)) {
            return false;
        }
        rows.put(held.block().first(), new Row(owner, row.generation() + 1, now, highWater, true));
        releases.add(new Release(held.block().first(), owner, clock.currentTimeMillis(), highWater));
        return true;
    }

    private synchronized void misused(String what) {
        misuse.add(what);
    }

    /** One provider's view of the store. Checks the SPI's promise: one call at a time, none after close. */
    final class Backend implements LeaseBackend<Long> {

        private final String owner;
        private final AtomicInteger inFlight = new AtomicInteger();
        private volatile String closedBy;

        private Backend(String owner) {
            this.owner = owner;
        }

        private void enter(String call) {
            String closer = closedBy;
            if (closer != null) {
                misused(call + " by '" + owner + "' on " + Thread.currentThread().getName()
                        + " after the backend was closed on " + closer);
            }
            if (inFlight.incrementAndGet() != 1) {
                misused(call + " by '" + owner + "' while another call was in the store");
            }
        }

        private void leave() {
            inFlight.decrementAndGet();
        }

        @Override
        public String store() {
            return "the in-memory store";
        }

        @Override
        public String scope() {
            return "memory";
        }

        @Override
        public String describe(LeaseClaim<Long> held) {
            return "memory (owner '" + owner + "'" + (held == null ? "" : ", " + held.block().describe()) + ")";
        }

        @Override
        public LeaseClaim<Long> claim(MachineIdRange range, int blockSize, boolean startUp) {
            enter("claim");
            try {
                return InMemoryLeaseStore.this.claim(owner, range, blockSize, startUp);
            } finally {
                leave();
            }
        }

        @Override
        public Renewal<Long> renew(LeaseClaim<Long> held, long expiry, long highWater) {
            enter("renew");
            try {
                return InMemoryLeaseStore.this.renew(owner, held, expiry, highWater);
            } finally {
                leave();
            }
        }

        @Override
        public boolean release(LeaseClaim<Long> held, long now, long highWater) {
            enter("release");
            try {
                return InMemoryLeaseStore.this.release(owner, held, now, highWater);
            } finally {
                leave();
            }
        }

        /** The scenarios never list leases; an operator's view is not what they explore. */
        @Override
        public MachineIdLeases leases(LongPredicate heldHere) {
            throw new UnsupportedOperationException("the concurrency scenarios do not list leases");
        }

        @Override
        public Duration closeTimeout() {
            return Duration.ofSeconds(5);
        }

        @Override
        public void close() {
            enter("close");
            closedBy = Thread.currentThread().getName();
            leave();
        }
    }
}
