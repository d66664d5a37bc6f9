package io.vesta.machine.redis;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk.Attempt;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.RecordLeaseBackend;
import io.vesta.machine.StoreMark;
import io.vesta.machine.redis.RedisLeaseStore.Entry;
import io.vesta.machine.redis.RedisLeaseStore.Snapshot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.UUID;

/**
 * The Redis hash's part of a {@link RedisMachineIdProvider}: a claim in one script that writes a new fencing token and
 * the store mark, renewals and the release fenced by that token and the server instance, the wait after Redis may have
 * lost acknowledged writes, and ending a lease in one script. Why each is safe: docs/machine-ids.md, "Redis leases".
 */
final class RedisLeaseBackend extends RecordLeaseBackend<RedisLeaseBackend.Fence, Entry, Snapshot> {

    private static final System.Logger LOG = System.getLogger(RedisMachineIdProvider.class.getName());

    private final RedisLeaseStore store;
    private final long maxClockSkewMillis;

    RedisLeaseBackend(RedisLeaseStore store, LeaseSettings settings, Duration maxClockSkew) {
        super(settings, "redis", store.describe(), "entry", "entries", LOG);
        this.store = store;
        this.maxClockSkewMillis = maxClockSkew.toMillis();
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
    protected String view() {
        return "redis " + store.describe();
    }

    @Override
    public String scope() {
        return store.key();
    }

    @Override
    protected Snapshot read(MachineIdRange range) {
        return store.read();
    }

    @Override
    protected NavigableMap<Long, Entry> records(Snapshot snapshot) {
        return snapshot.entries();
    }

    /**
     * The store mark a claim on this snapshot writes, and the time its IDs must start after. The mark names the server
     * instance; when the hash has none (a new key, or a server that lost everything) or names another instance (a
     * restart or a failover, which may have lost acknowledged writes), every lease that could have been lost must end
     * first: a lease plus the clock skew after the change.
     */
    private StoreMark.Settle settle(Snapshot snapshot, long now) {
        long wait = leaseMillis + maxClockSkewMillis;
        return StoreMark.settle(StoreMark.parse(snapshot.store()), snapshot.runId(), now, wait, () -> {
            // Only the time that has surely passed since the server started comes off the wait: its uptime less a
            // second, since Redis truncates both ends of it to whole seconds; nothing on a server promoted from a
            // replica, whose uptime says nothing of its data set (docs/machine-ids.md, "Redis leases").
            long passed = snapshot.promoted() ? 0 : Math.max(0, snapshot.uptimeSeconds() - 1) * 1000;
            return StoreMark.Settle.until(snapshot.runId(), now + Math.max(0, wait - passed), now,
                    snapshot.promoted() ? store() + " holds no leases and was promoted from a"
                    + " replica, which may lack writes the former primary acknowledged"
                    : store() + " holds no leases from before the server started "
                    + snapshot.uptimeSeconds() + " s ago, and some may have been lost");
        }, mark -> store() + " was last claimed on another server instance (run_id.master_replid "
                + mark.instance() + ", now " + snapshot.runId() + "): it restarted or failed over and may have lost"
                + " acknowledged writes", store() + " restarted or failed over recently");
    }

    /**
     * Takes every machine ID of a block in one script, or none, under a new token. The wait after a store change is
     * measured from a reading taken after the read, so that the uptime it takes off never covers more than has passed.
     */
    @Override
    protected Attempt<LeaseClaim<Fence>> take(Snapshot snapshot, LeaseClaim<Long> next, List<Entry> block, long now) {
        StoreMark.Settle settle = settle(snapshot, timeSource.currentTimeMillis());
        Long mark = settle.notBefore(next.notBefore(), now);
        LeaseClaim<Fence> claim = new LeaseClaim<>(next.block(), next.expiry(), mark, next.takenFrom(),
                new Fence(UUID.randomUUID().toString(), snapshot.runId(), next.fence()));
        String result = store.claim(snapshot, settle.mark(), block, entries(claim, claim.expiry(),
                claim.highWater(claim.expiry())));
        if ("ok".equals(result)) {
            settle.logWait(LOG, next.block().first(), now, mark);
            return Attempt.taken(claim);
        }
        return "store".equals(result) ? Attempt.stale() : Attempt.lost();
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
        if ("ok".equals(result)) {
            return Renewal.renewed(held.fence());
        }
        return Renewal.lost(!result.startsWith("store:") ? lostReason(held) : store() + " is another server instance"
                + " than the one this node claimed on (run_id.master_replid " + held.fence().instance() + ", now "
                + result.substring("store:".length()) + "): it restarted or failed over and may have lost writes it"
                + " acknowledged, a takeover of this node's entry among them, so the entry cannot be renewed");
    }

    /** If the entries were taken over meanwhile, the token makes this write match nothing. */
    @Override
    public boolean release(LeaseClaim<Fence> held, long now, long highWater) {
        return "ok".equals(store.renew(held.fence(), entries(held, now, highWater)));
    }

    @Override
    protected boolean carries(Entry entry, Fence fence) {
        return entry.token().equals(fence.token());
    }

    @Override
    protected long generation(Fence fence) {
        return fence.generation();
    }

    @Override
    protected String gone() {
        return "is gone: the server lost its data (a restart without persistence, a failover, FLUSHALL or eviction) or"
                + " the key was deleted";
    }

    /** One script (end.lua): every live entry with the holder's token gets expiry now and a new token. */
    @Override
    protected long end(Entry entry, long now) {
        return store.end(entry.token(), now, UUID.randomUUID().toString());
    }

    /** The command timeout plus the second close() may wait for a heartbeat that is in Redis. */
    @Override
    public Duration closeTimeout() {
        return store.commandTimeout().plus(LeasedMachineIdProvider.CLOSE_WAIT_FOR_STORE);
    }

    /** Closes the connection, and the client when the provider made it. */
    @Override
    public void close() {
        store.close();
    }
}
