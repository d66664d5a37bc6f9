package io.vesta.machine.etcd;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk.Attempt;
import io.vesta.machine.LeaseEntry;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.StoreMark;
import io.vesta.machine.TokenLeaseBackend;
import io.vesta.machine.etcd.EtcdLeaseStore.Snapshot;
import io.vesta.machine.etcd.EtcdLeaseStore.Written;

import java.time.Duration;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The etcd keys' part of an {@link EtcdMachineIdProvider}: a claim in one transaction compared on every key's mod
 * revision and the store mark, renewals and the release compared on the revision of this node's last write (the
 * fence) on the cluster it claimed on, the recovery of a write whose reply was lost, the wait after a restore from a
 * snapshot, and an operator's end in one transaction. Why each is safe: docs/machine-ids.md, "etcd leases".
 */
final class EtcdLeaseBackend extends TokenLeaseBackend<EtcdLeaseBackend.Fence, Snapshot> {

    private static final System.Logger LOG = System.getLogger(EtcdMachineIdProvider.class.getName());
    /** How often an operator's end reads again after the holder renewed in between. */
    private static final int END_ATTEMPTS = 5;

    private final EtcdLeaseStore store;
    private final long maxClockSkewMillis;

    EtcdLeaseBackend(EtcdLeaseStore store, LeaseSettings settings, Duration maxClockSkew) {
        super(settings, "etcd", store.describe(), "key", "keys", LOG);
        this.store = store;
        this.maxClockSkewMillis = maxClockSkew.toMillis();
    }

    /**
     * What fences this node's writes: the random token of its claim, the cluster it claimed on, the generation it
     * claimed, and the revision this node last wrote its keys at (the mod revision every write compares).
     */
    record Fence(String token, long clusterId, long generation, long revision) implements TokenLeaseBackend.Fence {

        Fence at(long revision) {
            return new Fence(token, clusterId, generation, revision);
        }
    }

    @Override
    public String store() {
        return "etcd " + store.describe();
    }

    @Override
    public String scope() {
        return store.prefix();
    }

    @Override
    protected Snapshot read(MachineIdRange range) throws Exception {
        return store.read();
    }

    @Override
    protected NavigableMap<Long, LeaseEntry> records(Snapshot snapshot) {
        return snapshot.entries();
    }

    /**
     * The store mark a claim on {@code snapshot} writes, and the time its IDs must start after. A mark naming another
     * cluster ID (a restore from a snapshot), or none at all, lets every lease that could have been lost end first: a
     * lease plus the clock skew from now. No mark is no proof of a new prefix: a restore from a snapshot taken before
     * the prefix was first used leaves it empty too, while nodes still hold leases written after it.
     */
    private StoreMark.Settle settle(Snapshot snapshot, long now) {
        String cluster = Long.toHexString(snapshot.clusterId());
        long wait = leaseMillis + maxClockSkewMillis;
        return StoreMark.settle(StoreMark.parse(snapshot.mark()), cluster, now, wait,
                () -> StoreMark.Settle.until(cluster, now + wait, now, store() + " holds no store mark (key "
                        + store.prefix() + EtcdLeaseStore.STORE_KEY + "): a new prefix, a cluster restored from a"
                        + " snapshot taken before it was first used, or the key deleted, so leases may have been lost"),
                read -> store() + " was last claimed on etcd cluster " + read.instance() + ", now " + cluster
                        + ": restored from a snapshot, which loses every write after it",
                store() + " was restored from a snapshot recently");
    }

    /** Takes every machine ID of a block in one transaction, or none, under a new token. */
    @Override
    protected Attempt<LeaseClaim<Fence>> take(Snapshot snapshot, LeaseClaim<Long> next, List<LeaseEntry> block,
            long now) throws Exception {
        StoreMark.Settle settle = settle(snapshot, timeSource.currentTimeMillis());
        Long start = settle.notBefore(next.notBefore(), now);
        Fence fence = new Fence(UUID.randomUUID().toString(), snapshot.clusterId(), next.fence(), 0);
        LeaseClaim<Fence> claim = new LeaseClaim<>(next.block(), next.expiry(), start, next.takenFrom(), fence);
        StoreMark mark = settle.mark().equals(StoreMark.parse(snapshot.mark())) ? null : settle.mark();
        Written written = store.write(entries(claim, claim.expiry(), claim.highWater(claim.expiry())),
                snapshot.revisions(), mark, snapshot.markRevision());
        if (!written.succeeded() || written.clusterId() != snapshot.clusterId()) {
            // Another claim changed a key or the mark, or the cluster was replaced meanwhile: read again.
            return Attempt.stale();
        }
        settle.logWait(LOG, next.block().first(), now, start);
        return Attempt.taken(new LeaseClaim<>(claim.block(), claim.expiry(), start, claim.takenFrom(),
                fence.at(written.revision())));
    }

    /**
     * One transaction compared on the fence. A failed compare reads the keys: if every one still carries this claim's
     * token and generation, a write of ours landed although its reply was lost (a timeout, a leader change), so its
     * revision becomes the fence and the write is sent once more; otherwise the block is lost.
     */
    @Override
    public Renewal<Fence> renew(LeaseClaim<Fence> held, long expiry, long highWater) throws Exception {
        List<LeaseEntry> entries = entries(held, expiry, highWater);
        Fence fence = held.fence();
        for (int attempt = 0; attempt < 2; attempt++) {
            Written written = store.write(entries, fenced(entries, fence.revision()), null, -1);
            if (written.clusterId() != fence.clusterId()) {
                return Renewal.lost(changedCluster(fence, written.clusterId()));
            }
            if (written.succeeded()) {
                return Renewal.renewed(fence.at(written.revision()));
            }
            Snapshot now = store.read();
            Long ours = ourRevision(now, held);
            if (now.clusterId() != fence.clusterId() || ours == null) {
                break;
            }
            fence = fence.at(ours);
        }
        return Renewal.lost(lostReason(held));
    }

    private static NavigableMap<Long, Long> fenced(List<LeaseEntry> entries, long revision) {
        NavigableMap<Long, Long> revisions = new TreeMap<>();
        entries.forEach(e -> revisions.put(e.machineId(), revision));
        return revisions;
    }

    /** The one mod revision of {@code held}'s keys when every one still carries its claim; else null. */
    private Long ourRevision(Snapshot snapshot, LeaseClaim<Fence> held) {
        NavigableMap<Long, Long> at = snapshot.revisions().subMap(held.block().first(), true, held.block().last(), true);
        return carriesAll(snapshot.entries(), held) && at.values().stream().distinct().count() == 1 ? at.firstEntry()
                .getValue() : null;
    }

    private String changedCluster(Fence fence, long now) {
        return "the etcd cluster changed: restored from a snapshot? " + store() + " answers as cluster "
                + Long.toHexString(now) + ", this node claimed on cluster " + Long.toHexString(fence.clusterId())
                + ", which may have lost writes it acknowledged, a takeover of this node's keys among them";
    }

    @Override
    protected String gone() {
        return "is gone: the key was deleted, or the cluster restored from a snapshot taken before it was written";
    }

    @Override
    protected NavigableMap<Long, LeaseEntry> read(long min, long max) throws Exception {
        return store.read().entries().subMap(min, true, max, true);
    }

    /**
     * One transaction: every live key with {@code entry}'s token gets expiry now, the next generation and a new token,
     * compared on the mod revisions read, so that its holder's next renewal matches nothing; owner and high water stay.
     * A renewal of the holder in between (the same token at a new revision) is read again, a few times.
     */
    @Override
    protected long end(LeaseEntry entry, long now) throws Exception {
        String token = UUID.randomUUID().toString();
        for (int attempt = 0; attempt < END_ATTEMPTS; attempt++) {
            Snapshot snapshot = store.read();
            List<LeaseEntry> ended = ending(snapshot.entries().values(), entry.token(), now, token);
            if (ended.isEmpty() || store.write(ended, snapshot.revisions(), null, -1).succeeded()) {
                return ended.size();
            }
        }
        return 0;
    }

    /** A write and its recovery (a read and a write) may each take the command timeout; then close() may wait. */
    @Override
    public Duration closeTimeout() {
        return store.commandTimeout().multipliedBy(3).plus(LeasedMachineIdProvider.CLOSE_WAIT_FOR_STORE);
    }

    /** Closes the client when the provider made it. */
    @Override
    public void close() {
        store.close();
    }
}
