package io.vesta.machine.redis;

import io.vesta.machine.LeaseEnding;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.redis.RedisLeaseStore.Entry;
import io.vesta.time.TimeSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.UUID;
import java.util.function.LongPredicate;

/**
 * The entries of a {@link RedisMachineIdProvider}'s hash as an operator sees them, and ending a lease.
 *
 * <p>Ending a lease is one script (end.lua): every live entry carrying the holder's fencing token (a block shares
 * one) gets lease expiry now, the next generation and a new token, keeping its high water. The holder's next renewal
 * presents the old token, matches nothing and stops it for good; whoever takes an entry next starts after that high
 * water, which bounds everything the holder could issue. A renewal that lands first only raises the high water the
 * script keeps.
 */
final class RedisMachineIdLeases implements MachineIdLeases {

    private static final System.Logger LOG = System.getLogger(RedisMachineIdLeases.class.getName());

    private final RedisLeaseStore store;
    private final TimeSource timeSource;
    private final LongPredicate heldHere;

    RedisMachineIdLeases(RedisLeaseStore store, TimeSource timeSource, LongPredicate heldHere) {
        this.store = store;
        this.timeSource = timeSource;
        this.heldHere = heldHere;
    }

    @Override
    public String describe() {
        return "redis " + store.describe();
    }

    @Override
    public List<MachineIdLeaseInfo> list(MachineIdRange range) {
        NavigableMap<Long, Entry> entries = read("read the leases of range " + range);
        long now = timeSource.currentTimeMillis();
        List<MachineIdLeaseInfo> leases = new ArrayList<>((int) range.size());
        for (long id = range.min(); id <= range.max(); id++) {
            Entry entry = entries.get(id);
            leases.add(entry == null ? MachineIdLeaseInfo.free(id) : info(entry, now));
        }
        return leases;
    }

    @Override
    public Released release(long machineId, boolean force) {
        long now = timeSource.currentTimeMillis();
        Entry entry = read("end the lease on machine ID " + machineId).get(machineId);
        if (entry == null) {
            throw new IllegalArgumentException("Redis " + store.describe() + " has no lease on machine ID " + machineId
                    + ": it was never leased, so any node may take it");
        }
        MachineIdLeaseInfo before = info(entry, now);
        Released unchanged = LeaseEnding.check(before, force);
        if (unchanged != null) {
            return unchanged;
        }
        long ended;
        try {
            ended = store.end(entry.token(), now, UUID.randomUUID().toString());
        } catch (RuntimeException e) {
            throw new MachineIdUnavailableException("Cannot end the lease on machine ID " + machineId + " in Redis "
                    + store.describe() + ": " + e.getMessage(), e);
        }
        if (ended == 0) {
            throw LeaseEnding.changed(machineId);
        }
        Entry afterEntry = read("read the lease on machine ID " + machineId).get(machineId);
        return LeaseEnding.ended(before, afterEntry == null ? MachineIdLeaseInfo.free(machineId) : info(afterEntry, now),
                ended, "entries", "Redis " + store.describe(), LOG);
    }

    private NavigableMap<Long, Entry> read(String what) {
        try {
            return store.read().entries();
        } catch (MachineIdUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new MachineIdUnavailableException("Cannot " + what + " from Redis " + store.describe() + ": "
                    + e.getMessage(), e);
        }
    }

    private MachineIdLeaseInfo info(Entry entry, long now) {
        return new MachineIdLeaseInfo(entry.machineId(), entry.leaseExpiry() > now ? MachineIdLeaseInfo.State.LIVE
                : MachineIdLeaseInfo.State.EXPIRED, entry.owner(), Instant.ofEpochMilli(entry.leaseExpiry()),
                Instant.ofEpochMilli(entry.highWater()), entry.generation(), heldHere.test(entry.machineId()));
    }
}
