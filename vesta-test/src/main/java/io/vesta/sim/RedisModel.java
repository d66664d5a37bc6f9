package io.vesta.sim;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdRange;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A model of the Redis hash of vesta-redis's {@code RedisMachineIdProvider}: one entry per machine ID, {@code
 * (generation, leaseExpiry, highWater, token, owner)}, and a field {@code store} naming the server instance the last
 * claim ran on and when its settling ends. Every read and write is one Lua script, so it is atomic here:
 * <ul>
 * <li>a claim writes its entries and the store field only if the server instance, the store field and every entry
 *     are still as the claimer read them; it writes a new fencing token;</li>
 * <li>a renewal and a release write only entries that still carry the node's token.</li>
 * </ul>
 * Its loss model is Redis's: the server restarts now and then, either empty (no persistence) or from its last
 * snapshot (RDB), losing writes it acknowledged; either way its instance ({@code run_id}) changes. It reports its
 * uptime in whole seconds as Redis does, {@code floor(now) - floor(start)} in seconds, which can exceed the time that
 * passed by almost a second. A claim on a store that may have lost data starts after the settle time of the real
 * provider's {@code settle()}: the lease plus the maximum clock skew after the change, less {@code max(0, uptime - 1)}
 * seconds when the hash is empty (less the whole uptime with {@link Defect#SETTLE_WITH_ROUNDED_UP_UPTIME}).
 *
 * <p>A renewal or release fails once the server instance changed since the node's claim, as vesta-redis's
 * {@code renew.lua} checks it: a restart from a snapshot can restore an entry, token and all, that another node took
 * over afterwards, and its former holder must not renew it. The simulation found that hole in vesta-redis, whose
 * {@code renew.lua} checked the token only (seeds 128 and 140 among others; {@link Defect#RENEWAL_FENCED_BY_TOKEN_ONLY}
 * puts it back), before the fix.
 */
final class RedisModel {

    /** An entry; {@code tenure} is the simulation's record of the claim that wrote it. */
    record Entry(long machineId, long generation, long leaseExpiry, long highWater, long token, String owner,
            Tenure tenure) implements ModelBackend.Leased<Entry> {

        @Override
        public Entry written(long expiry, long highWater) {
            return new Entry(machineId, generation, expiry, highWater, token, owner, tenure);
        }

        boolean sameAs(Entry other) {
            return other != null && generation == other.generation && leaseExpiry == other.leaseExpiry
                    && highWater == other.highWater && token == other.token && owner.equals(other.owner);
        }
    }

    /** The hash's {@code store} field: the instance the last claim ran on, and when its settling ends. */
    record Mark(long runId, long settleUntil) {
    }

    /** One read of the hash and of the server's {@code INFO}. */
    record Snapshot(TreeMap<Long, Entry> entries, Mark store, long runId, long uptimeSeconds) {
    }

    /** The fence of a node's writes: its token, the server instance its claim landed on, and its tenure. */
    record Fence(long token, long runId, Tenure tenure) implements ModelBackend.Fenced {
        @Override
        public String toString() {
            return "token " + token + " on instance " + runId + " of tenure " + tenure.number;
        }
    }

    private final Simulation sim;
    private TreeMap<Long, Entry> hash = new TreeMap<>();
    private Mark store;
    private TreeMap<Long, Entry> savedHash = new TreeMap<>();
    private Mark savedStore;
    private long runId = 1;
    private long startedAt;
    private long tokens;

    RedisModel(Simulation sim) {
        this.sim = sim;
        this.startedAt = sim.scheduler.now() - sim.scheduler.between(0, 60_000);
    }

    Backend backend(Simulation.Run run) {
        return new Backend(sim, run);
    }

    /** Snapshots (RDB saves) now and then, and restarts. */
    void schedule() {
        sim.scheduler.after(sim.scheduler.between(500, 3_000), this::save);
        sim.scheduler.after(sim.scheduler.between(2_000, 10_000), this::restart);
    }

    private void save() {
        savedHash = new TreeMap<>(hash);
        savedStore = store;
        sim.trace("redis saves a snapshot");
        sim.scheduler.after(sim.scheduler.between(500, 3_000), this::save);
    }

    private void restart() {
        boolean empty = sim.scheduler.chance(0.6);
        hash = empty ? new TreeMap<>() : new TreeMap<>(savedHash);
        store = empty ? null : savedStore;
        runId++;
        startedAt = sim.scheduler.now();
        sim.trace("redis restarts " + (empty ? "empty" : "from its snapshot") + " as instance " + runId);
        sim.scheduler.after(sim.scheduler.between(2_000, 10_000), this::restart);
    }

    private long uptimeSeconds() {
        long now = sim.scheduler.now();
        return Math.floorDiv(now, 1000) - Math.floorDiv(startedAt, 1000);
    }

    private boolean write(MachineIdBlock block, Fence fence, long expiry, long highWater) {
        if (fence.runId() != runId && sim.scenario.defect() != Defect.RENEWAL_FENCED_BY_TOKEN_ONLY) {
            return false;
        }
        return ModelBackend.writeBlock(hash, block, fence, (entry, i, f) -> entry.token() == f.token(), expiry,
                highWater);
    }

    final class Backend extends ModelBackend<Fence> {

        Backend(Simulation sim, Simulation.Run run) {
            super(sim, run);
        }

        @Override
        public String store() {
            return "Redis sim key vesta:machine-ids";
        }

        @Override
        public LeaseClaim<Fence> claim(MachineIdRange range, int blockSize, boolean startUp) throws Exception {
            return claim(range, blockSize, startUp,
                    () -> call("read", () -> new Snapshot(new TreeMap<>(hash), store, runId, uptimeSeconds())),
                    Snapshot::entries, (snapshot, first, block, now) -> takeBlock(snapshot,
                            settle(snapshot, run.node.clock.currentTimeMillis()), first, block, now));
        }

        /** The real provider's {@code settle()}: the store mark to write, and the time IDs start after (or null). */
        private Mark settle(Snapshot snapshot, long now) {
            long wait = lease() + sim.maxSkew;
            if (snapshot.store() == null) {
                long uptime = snapshot.uptimeSeconds();
                long passed = sim.scenario.defect() == Defect.SETTLE_WITH_ROUNDED_UP_UPTIME ? uptime * 1000
                        : Math.max(0, uptime - 1) * 1000;
                return new Mark(snapshot.runId(), now + Math.max(0, wait - passed));
            }
            if (snapshot.store().runId() != snapshot.runId()) {
                return new Mark(snapshot.runId(), now + wait);
            }
            return snapshot.store();
        }

        private LeaseClaimWalk.Attempt<LeaseClaim<Fence>> takeBlock(Snapshot snapshot, Mark settle, long first,
                List<Entry> read, long now) throws IOException {
            long expiry = now + lease();
            Settled take = Settled.of(read, run.node.owner, settle.settleUntil(), now, expiry);
            long token = ++tokens;
            long highWater = take.highWater();
            Long notBefore = take.notBefore();
            MachineIdBlock block = new MachineIdBlock(first, read.size());
            return call("claim " + block, () -> {
                if (runId != snapshot.runId() || !Objects.equals(store, snapshot.store())) {
                    return LeaseClaimWalk.Attempt.<LeaseClaim<Fence>>stale();
                }
                for (int i = 0; i < read.size(); i++) {
                    Entry was = read.get(i);
                    Entry is = hash.get(first + i);
                    if (was == null ? is != null : !was.sameAs(is)) {
                        return LeaseClaimWalk.Attempt.<LeaseClaim<Fence>>lost();
                    }
                }
                Tenure tenure = sim.checker.begin(block, run.node.owner, run.label,
                        sim.scheduler.now() - Simulation.START, notBefore, highWater);
                for (int i = 0; i < read.size(); i++) {
                    hash.put(first + i, new Entry(first + i, take.generation(), expiry, highWater, token, run.node.owner,
                            tenure));
                }
                store = settle;
                return LeaseClaimWalk.Attempt.taken(new LeaseClaim<>(block, expiry, notBefore, take.takenFrom(),
                        new Fence(token, runId, tenure)));
            });
        }

        @Override
        public Renewal<Fence> renew(LeaseClaim<Fence> held, long expiry, long highWater) throws Exception {
            boolean renewed = call("renew " + held.block() + " to " + expiry,
                    () -> write(held.block(), held.fence(), expiry, highWater));
            return renewed ? Renewal.renewed(held.fence()) : Renewal.lost("the entry no longer carries this token");
        }

        @Override
        public boolean release(LeaseClaim<Fence> held, long now, long highWater) throws Exception {
            return call("release " + held.block() + " at " + now,
                    () -> write(held.block(), held.fence(), now, highWater));
        }
    }
}
