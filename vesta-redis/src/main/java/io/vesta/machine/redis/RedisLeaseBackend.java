package io.vesta.machine.redis;

import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.RecordLeases;
import io.vesta.machine.redis.RedisLeaseStore.Entry;
import io.vesta.machine.redis.RedisLeaseStore.Snapshot;
import io.vesta.machine.redis.RedisLeaseStore.StoreMark;
import io.vesta.time.TimeSource;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.UUID;
import java.util.function.LongPredicate;

/**
 * The Redis hash's part of a {@link RedisMachineIdProvider} (see there for the protocol): a claim in one script that
 * writes a new fencing token and the store mark, renewals and the release fenced by that token, the wait after
 * Redis may have lost acknowledged writes, and the operator's view of the leases.
 */
final class RedisLeaseBackend implements LeaseBackend<RedisLeaseBackend.Fence> {

    private static final System.Logger LOG = System.getLogger(RedisMachineIdProvider.class.getName());

    private final RedisLeaseStore store;
    private final String owner;
    private final long leaseMillis;
    private final long maxClockSkewMillis;
    private final TimeSource timeSource;

    RedisLeaseBackend(RedisLeaseStore store, LeaseSettings settings, Duration maxClockSkew) {
        this.store = store;
        this.owner = settings.owner();
        this.leaseMillis = settings.lease().toMillis();
        this.maxClockSkewMillis = maxClockSkew.toMillis();
        this.timeSource = settings.timeSource();
    }

    /**
     * What fences this node's writes: the random token of its claim, the server instance it claimed on
     * ({@code run_id.master_replid}), and the generation it claimed, for messages. A server restored from a snapshot
     * or an append-only file, or promoted by a failover, may have forgotten a takeover and show this node's token
     * again; its renewals are refused on any instance but the one it claimed on.
     */
    record Fence(String token, String instance, long generation) {
    }

    @Override
    public String store() {
        return "Redis " + store.describe();
    }

    @Override
    public String scope() {
        return store.key();
    }

    @Override
    public String describe(LeaseClaim<Fence> held) {
        return LeaseClaim.describe("redis", store.describe(), owner, held);
    }

    /** Leases a whole aligned block, one entry each, in one script: all of it or none, under one token. */
    @Override
    public LeaseClaim<Fence> claim(MachineIdRange range, int blockSize, boolean startUp) {
        return LeaseClaimWalk.claim(range, blockSize, owner, startUp, timeSource,
                new LeaseClaimWalk.Store<Snapshot, Entry, LeaseClaim<Fence>, RuntimeException>() {
                    @Override
                    public Snapshot read() {
                        return store.read();
                    }

                    @Override
                    public NavigableMap<Long, Entry> records(Snapshot snapshot) {
                        return snapshot.entries();
                    }

                    @Override
                    public LeaseClaimWalk.Attempt<LeaseClaim<Fence>> take(Snapshot snapshot, long first,
                            List<Entry> block, long now) {
                        // The wait after a store change is measured from a reading taken after the read, so that
                        // the server's uptime it subtracts can never cover more than has passed.
                        return takeBlock(snapshot, settle(snapshot, timeSource.currentTimeMillis()), first, block, now);
                    }

                    @Override
                    public RuntimeException rangeFull(MachineIdRange range, int blockSize, Collection<Entry> entries,
                            long now) {
                        return LeaseClaimWalk.rangeFull(store(), "entries", range, blockSize, entries, now);
                    }

                    @Override
                    public RuntimeException gaveUp(int rounds) {
                        return LeaseClaimWalk.gaveUp(store(), "entry", owner, range, blockSize, rounds);
                    }
                });
    }

    /**
     * The store mark a claim on this snapshot writes, and the time its IDs must start after. The mark names the server
     * instance; when the hash has none (a new key, or a server that lost everything) or names another instance (a
     * restart or a failover, which may have lost acknowledged writes), every lease that could have been lost must end
     * first: a lease plus the clock skew after the change.
     */
    private Settle settle(Snapshot snapshot, long now) {
        StoreMark mark = StoreMark.parse(snapshot.store());
        long wait = leaseMillis + maxClockSkewMillis;
        if (mark == null) {
            // Nothing written before the server started can be in the hash, so the leases lost with it ended a lease
            // plus the skew after the start; only the time that has surely passed since then may be taken off the
            // wait. Redis reports its uptime as whole seconds of its clock now minus whole seconds of its start
            // (uptime_in_seconds = unixtime - stat_starttime, both truncated), which can exceed the time that passed
            // by almost a second: a server started at 12:00:00.999 reports 1 s at 12:00:01.000. Its start lies
            // before the end of its second, so at least uptime - 1 s has passed (a reading of its cached clock that
            // lags only reports less). A replica promoted to primary started long before it became one, with a data
            // set that may lack what the former primary acknowledged: its uptime covers nothing.
            long passed = snapshot.promoted() ? 0 : Math.max(0, snapshot.uptimeSeconds() - 1) * 1000;
            long settleUntil = now + Math.max(0, wait - passed);
            return new Settle(new StoreMark(snapshot.runId(), settleUntil), settleUntil <= now ? null
                    : snapshot.promoted() ? store() + " holds no leases and was promoted from a"
                    + " replica, which may lack writes the former primary acknowledged"
                    : store() + " holds no leases from before the server started "
                    + snapshot.uptimeSeconds() + " s ago, and some may have been lost");
        }
        if (!mark.runId().equals(snapshot.runId())) {
            long settleUntil = now + wait;
            return new Settle(new StoreMark(snapshot.runId(), settleUntil), store()
                    + " was last claimed on another server instance (run_id.master_replid " + mark.runId() + ", now "
                    + snapshot.runId()
                    + "): it restarted or failed over and may have lost acknowledged writes");
        }
        return new Settle(mark, mark.settleUntil() > now ? store() + " restarted or failed over recently" : null);
    }

    /** Takes every machine ID of a block in one script, or none. */
    private LeaseClaimWalk.Attempt<LeaseClaim<Fence>> takeBlock(Snapshot snapshot, Settle settle, long first,
            List<Entry> block, long now) {
        LeaseClaim<Long> next = RecordLeases.claim(first, block, owner, now + leaseMillis);
        boolean waits = settle.waitsPast(now);
        Long mark = next.notBefore();
        if (waits) {
            mark = mark == null ? settle.mark.settleUntil() : Math.max(mark, settle.mark.settleUntil());
        }
        // The high water never drops below the one taken over: after an operator's end the entry's expiry is the
        // operator's clock reading, and the former holder, whose clock may run ahead, issues up to its high water.
        LeaseClaim<Fence> claim = new LeaseClaim<>(next.block(), next.expiry(), mark, next.takenFrom(),
                new Fence(UUID.randomUUID().toString(), snapshot.runId(), next.fence()));
        String result = store.claim(snapshot, settle.mark, block, entries(claim, claim.expiry(),
                claim.highWater(claim.expiry())));
        if ("ok".equals(result)) {
            if (waits) {
                Long settled = mark;
                LOG.log(Level.WARNING, () -> settle.reason + "; the IDs of machine ID " + first + " start after "
                        + Instant.ofEpochMilli(settled) + ", when every lease that may have been lost has ended");
            }
            return LeaseClaimWalk.Attempt.taken(claim);
        }
        return "store".equals(result) ? LeaseClaimWalk.Attempt.stale() : LeaseClaimWalk.Attempt.lost();
    }

    /** The entries of {@code held}'s block as this node writes them, with {@code expiry} and {@code highWater}. */
    private List<Entry> entries(LeaseClaim<Fence> held, long expiry, long highWater) {
        List<Entry> entries = new ArrayList<>(held.block().size());
        for (long id = held.block().first(); id <= held.block().last(); id++) {
            entries.add(new Entry(id, held.fence().generation(), expiry, highWater, held.fence().token(), owner));
        }
        return entries;
    }

    @Override
    public Renewal<Fence> renew(LeaseClaim<Fence> held, long expiry, long highWater) {
        String result = store.renew(held.fence(), entries(held, expiry, highWater));
        return "ok".equals(result) ? Renewal.renewed(held.fence()) : Renewal.lost(lostReason(result, held));
    }

    /** Why a renewal found the block gone: the script's answer, explained with what the hash shows now. */
    private String lostReason(String result, LeaseClaim<Fence> held) {
        MachineIdBlock block = held.block();
        long generation = held.fence().generation();
        if (result.startsWith("store:")) {
            return store() + " is another server instance than the one this node claimed on (run_id.master_replid "
                    + held.fence().instance() + ", now " + result.substring("store:".length()) + "): it restarted or"
                    + " failed over and may have lost writes it acknowledged, a takeover of this node's entry among"
                    + " them, so the entry cannot be renewed";
        }
        long machineId = Long.parseLong(result.substring(result.indexOf(':') + 1));
        String which = block.size() == 1 ? "its entry"
                : "the entry of machine ID " + machineId + " of its block " + block;
        if (result.startsWith("gone:")) {
            return which + " in " + store() + " is gone: the server lost its data (a restart without"
                    + " persistence, a failover, FLUSHALL or eviction) or the key was deleted";
        }
        Entry now = null;
        try {
            now = store.read().entries().get(machineId);
        } catch (RuntimeException e) {
            // explained without it
        }
        if (now == null) {
            return which + " in " + store() + " carries another fencing token";
        }
        String it = block.size() == 1 ? "it" : which;
        String lost = RecordLeases.lostTo(store(), it, now, generation, owner, timeSource.currentTimeMillis());
        if (lost != null) {
            return lost;
        }
        return store() + " shows " + it + " held by owner '" + now.owner() + "' under another fencing token"
                + " (generation " + now.generation() + "): claimed anew after Redis lost this node's entry";
    }

    /** If the entries were taken over meanwhile, the token makes this write match nothing. */
    @Override
    public boolean release(LeaseClaim<Fence> held, long now, long highWater) {
        return "ok".equals(store.renew(held.fence(), entries(held, now, highWater)));
    }

    /**
     * The hash's entries as an operator sees them, and ending a lease: one script (end.lua) gives every live entry that
     * carries the holder's fencing token (a block shares one) lease expiry now, the next generation and a new token,
     * keeping its high water. The holder's next renewal presents the old token, matches nothing and stops it for good;
     * whoever takes an entry next starts after that high water, which bounds everything the holder could issue. A
     * renewal that lands first only raises the high water the script keeps.
     */
    @Override
    public MachineIdLeases leases(LongPredicate heldHere) {
        return new RecordLeases<>(new RecordLeases.Store<Entry>() {
            @Override
            public NavigableMap<Long, Entry> read(long min, long max) {
                return store.read().entries().subMap(min, true, max, true);
            }

            @Override
            public long end(Entry entry, long now) {
                return store.end(entry.token(), now, UUID.randomUUID().toString());
            }
        }, "redis " + store.describe(), store(), "entries", timeSource, heldHere, LOG);
    }

    /** The command timeout plus the second close() may wait for a heartbeat that is in Redis. */
    @Override
    public Duration closeTimeout() {
        return store.commandTimeout().plus(LeasedMachineIdProvider.CLOSE_WAIT_FOR_STORE);
    }

    @Override
    public String unreleased(LeaseClaim<Fence> held, long lastWrittenExpiry) {
        return "the entries become free by themselves when their lease ends (the last expiry this node wrote is "
                + Instant.ofEpochMilli(lastWrittenExpiry) + ")";
    }

    /** Closes the connection, and the client when the provider made it. */
    @Override
    public void close() {
        store.close();
    }

    /** The store mark a claim writes, and why its IDs must wait (null when they need not). */
    private record Settle(StoreMark mark, String reason) {

        /** Whether a claim at {@code now} must start after the mark's settle time. */
        boolean waitsPast(long now) {
            return reason != null && mark.settleUntil() > now;
        }
    }
}
