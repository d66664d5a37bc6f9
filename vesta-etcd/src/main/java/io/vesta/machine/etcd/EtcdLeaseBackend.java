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
 * The etcd part of an {@link EtcdMachineIdProvider}: claims, renewals, releases and an operator's end as transactions
 * compared on mod revisions, the recovery of a write whose reply was lost, the wait after a restore from a snapshot.
 * Why each is safe: docs/machine-ids.md, "etcd leases".
 */
final class EtcdLeaseBackend extends TokenLeaseBackend<EtcdLeaseBackend.Fence, Snapshot> {

    private static final System.Logger LOG = System.getLogger(EtcdMachineIdProvider.class.getName());

    private final EtcdLeaseStore store;
    private final long maxClockSkewMillis;

    EtcdLeaseBackend(EtcdLeaseStore store, LeaseSettings settings, Duration maxClockSkew) {
        super(settings, "etcd", store.describe(), "key", "keys", LOG);
        this.store = store;
        this.maxClockSkewMillis = maxClockSkew.toMillis();
    }

    /** The claim's token, cluster and generation, and the revision this node last wrote its keys at. */
    record Fence(String token, long clusterId, long generation, long revision) implements TokenLeaseBackend.Fence {
        Fence at(long newRevision) {
            return new Fence(token, clusterId, generation, newRevision);
        }
    }

    @Override
    public String store() {
        return "etcd " + store.describe();
    }

    @Override
    public String scope() {
        return store.prefix;
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
     * The mark a claim writes and its wait: a lease plus the skew when the mark names another cluster (a restore) or
     * there is none (a new prefix looks like a restore from a snapshot taken before the prefix was first used).
     */
    private StoreMark.Settle settle(Snapshot snapshot, long now) {
        String cluster = Long.toHexString(snapshot.clusterId());
        long wait = leaseMillis + maxClockSkewMillis;
        return StoreMark.settle(StoreMark.parse(snapshot.mark()), cluster, now, wait,
                () -> StoreMark.Settle.until(cluster, now + wait, now, store() + " holds no store mark (key "
                        + store.prefix + EtcdLeaseStore.STORE_KEY + "): a new prefix, a cluster restored from a"
                        + " snapshot taken before it was first used, or the key deleted, so leases may have been lost"),
                read -> store() + " was last claimed on etcd cluster " + read.instance() + ", now " + cluster
                        + ": restored from a snapshot, which loses every write after it",
                store() + " was restored from a snapshot recently");
    }

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
            NavigableMap<Long, Long> fenced = new TreeMap<>();
            long revision = fence.revision();
            entries.forEach(entry -> fenced.put(entry.machineId(), revision));
            Written written = store.write(entries, fenced, null, -1);
            if (written.succeeded() && written.clusterId() == fence.clusterId()) {
                return Renewal.renewed(fence.at(written.revision()));
            }
            Snapshot now = written.clusterId() == fence.clusterId() ? store.read() : null;
            if (now == null || now.clusterId() != fence.clusterId()) {
                return Renewal.lost(changedCluster(fence, now == null ? written.clusterId() : now.clusterId()));
            }
            long ours = ourRevision(now, held);
            if (ours < 0) {
                break;
            }
            fence = fence.at(ours);
        }
        return Renewal.lost(lostReason(held));
    }

    /** The one mod revision of {@code held}'s keys when every one still carries its claim; else -1, no revision. */
    private long ourRevision(Snapshot snapshot, LeaseClaim<Fence> held) {
        NavigableMap<Long, Long> at = snapshot.revisions().subMap(held.block().first(), true, held.block().last(), true);
        return carriesAll(snapshot.entries(), held) && at.values().stream().distinct().count() == 1 ? at.firstEntry()
                .getValue() : -1;
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

    /**
     * One transaction ending the live keys with {@code entry}'s token ({@link #ending}), compared on the revisions read;
     * read again while the holder renews in between (the same token at a new revision), for one command timeout.
     */
    @Override
    protected long end(LeaseEntry entry, long now) throws Exception {
        String token = UUID.randomUUID().toString();
        long deadline = System.nanoTime() + store.commandTimeout.toNanos();
        do {
            Snapshot snapshot = store.read();
            List<LeaseEntry> ended = ending(snapshot.entries().values(), entry.token(), now, token);
            if (ended.isEmpty() || store.write(ended, snapshot.revisions(), null, -1).succeeded()) {
                return ended.size();
            }
        } while (System.nanoTime() - deadline < 0);
        return 0;
    }

    /** A write, and its recovery's read and write, may each take the command timeout. */
    @Override
    public Duration closeTimeout() {
        return store.commandTimeout.multipliedBy(3).plus(LeasedMachineIdProvider.CLOSE_WAIT_FOR_STORE);
    }

    @Override
    public void close() {
        store.close();
    }
}
