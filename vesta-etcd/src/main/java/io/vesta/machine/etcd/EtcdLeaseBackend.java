package io.vesta.machine.etcd;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk.Attempt;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.RecordLeaseBackend;
import io.vesta.machine.StoreMark;
import io.vesta.machine.etcd.EtcdLeaseStore.Entry;
import io.vesta.machine.etcd.EtcdLeaseStore.Snapshot;
import io.vesta.machine.etcd.EtcdLeaseStore.Written;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.UUID;

/**
 * The etcd keys' part of an {@link EtcdMachineIdProvider}: a claim in one transaction compared on every key's mod
 * revision and the store mark, renewals and the release compared on the revision of this node's last write (the
 * fence) on the cluster it claimed on, the recovery of a write whose reply was lost, the wait after a restore from a
 * snapshot, and ending a lease in one transaction. Why each is safe: docs/machine-ids.md, "etcd leases".
 */
final class EtcdLeaseBackend extends RecordLeaseBackend<EtcdLeaseBackend.Fence, Entry, Snapshot> {

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
     * claimed, and the revision its keys were last written at by this node (the mod revision every write compares).
     */
    record Fence(String token, long clusterId, long generation, long revision) {

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
    protected NavigableMap<Long, Entry> records(Snapshot snapshot) {
        return snapshot.entries();
    }

    /**
     * The store mark a claim on {@code snapshot} writes, and the time its IDs must start after. A mark naming another
     * cluster ID (a restore from a snapshot), or none at all, lets every lease that could have been lost end first: a
     * lease plus the clock skew from now. No mark is not proof of a new prefix: a restore from a snapshot taken before
     * the prefix was first used leaves it empty too, while nodes still hold leases written after it.
     */
    private StoreMark.Settle settle(Snapshot snapshot, long now) {
        String cluster = Long.toHexString(snapshot.clusterId());
        long wait = leaseMillis + maxClockSkewMillis;
        return StoreMark.settle(StoreMark.parse(snapshot.mark()), cluster, now, wait,
                () -> StoreMark.Settle.until(cluster, now + wait, now, store() + " holds no store mark (key "
                        + store.prefix() + EtcdLeaseStore.STORE_KEY + "): a new prefix, or a cluster restored from a"
                        + " snapshot taken before it was first used, or the key deleted, so leases may have been lost"),
                read -> store() + " was last claimed on etcd cluster " + read.instance() + ", now " + cluster
                        + ": restored from a snapshot, which loses every write after it",
                store() + " was restored from a snapshot recently");
    }

    /** Takes every machine ID of a block in one transaction, or none, under a new token. */
    @Override
    protected Attempt<LeaseClaim<Fence>> take(Snapshot snapshot, LeaseClaim<Long> next, List<Entry> block, long now)
            throws Exception {
        StoreMark.Settle settle = settle(snapshot, timeSource.currentTimeMillis());
        Long start = settle.notBefore(next.notBefore(), now);
        Fence fence = new Fence(UUID.randomUUID().toString(), snapshot.clusterId(), next.fence(), 0);
        LeaseClaim<Fence> claim = new LeaseClaim<>(next.block(), next.expiry(), start, next.takenFrom(), fence);
        StoreMark read = StoreMark.parse(snapshot.mark());
        Written written = store.claim(snapshot, settle.mark().equals(read) ? null : settle.mark(), block,
                entries(claim, claim.expiry(), claim.highWater(claim.expiry())));
        if (!written.succeeded() || written.clusterId() != snapshot.clusterId()) {
            // Another claim changed a key or the mark (or the cluster was replaced meanwhile): read again.
            return Attempt.stale();
        }
        settle.logWait(LOG, next.block().first(), now, start);
        return Attempt.taken(new LeaseClaim<>(claim.block(), claim.expiry(), start, claim.takenFrom(),
                fence.at(written.revision())));
    }

    /** The entries of {@code held}'s block as this node writes them, with {@code expiry} and {@code highWater}. */
    private List<Entry> entries(LeaseClaim<Fence> held, long expiry, long highWater) {
        List<Entry> entries = new ArrayList<>(held.block().size());
        for (long id = held.block().first(); id <= held.block().last(); id++) {
            entries.add(new Entry(id, held.fence().generation(), expiry, highWater, held.fence().token(), owner, 0));
        }
        return entries;
    }

    @Override
    public Renewal<Fence> renew(LeaseClaim<Fence> held, long expiry, long highWater) throws Exception {
        List<Entry> entries = entries(held, expiry, highWater);
        Fence fence = held.fence();
        for (int attempt = 0; attempt < 2; attempt++) {
            Written written = store.write(entries, fence.revision());
            if (written.clusterId() != fence.clusterId()) {
                return Renewal.lost(changedCluster(fence, written.clusterId()));
            }
            if (written.succeeded()) {
                return Renewal.renewed(fence.at(written.revision()));
            }
            // A failed compare: if every key still carries this claim, a write of ours landed although its reply
            // was lost (a timeout, a leader change). Adopt its revision and write once more.
            Snapshot now = store.read();
            if (now.clusterId() != fence.clusterId()) {
                return Renewal.lost(changedCluster(fence, now.clusterId()));
            }
            Long revision = ourRevision(now, held);
            if (revision == null) {
                break;
            }
            fence = fence.at(revision);
        }
        return Renewal.lost(lostReason(held));
    }

    /** The one mod revision of {@code held}'s keys when every one carries its token and generation; else null. */
    private static Long ourRevision(Snapshot snapshot, LeaseClaim<Fence> held) {
        Long revision = null;
        for (long id = held.block().first(); id <= held.block().last(); id++) {
            Entry entry = snapshot.entries().get(id);
            if (entry == null || !entry.token().equals(held.fence().token())
                    || entry.generation() != held.fence().generation()
                    || (revision != null && revision != entry.modRevision())) {
                return null;
            }
            revision = entry.modRevision();
        }
        return revision;
    }

    private String changedCluster(Fence fence, long now) {
        return "the etcd cluster changed: restored from a snapshot? " + store() + " answers as cluster "
                + Long.toHexString(now) + ", this node claimed on cluster " + Long.toHexString(fence.clusterId())
                + ", which may have lost writes it acknowledged, a takeover of this node's keys among them";
    }

    /** If the keys were taken over meanwhile, their mod revision makes this write match nothing. */
    @Override
    public boolean release(LeaseClaim<Fence> held, long now, long highWater) throws Exception {
        return renew(held, now, highWater).fence() != null;
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
        return "is gone: the key was deleted, or the cluster restored from a snapshot taken before it was written";
    }

    @Override
    protected NavigableMap<Long, Entry> read(long min, long max) throws Exception {
        return store.read().entries().subMap(min, true, max, true);
    }

    /**
     * One transaction: every live key with {@code entry}'s token gets expiry now, the next generation and a new token,
     * compared on the mod revisions read, so that its holder's next renewal matches nothing; owner and high water stay.
     * A renewal of the holder in between (same token, a new revision) is read again, a few times.
     */
    @Override
    protected long end(Entry entry, long now) throws Exception {
        String token = UUID.randomUUID().toString();
        for (int attempt = 0; attempt < END_ATTEMPTS; attempt++) {
            List<Entry> read = new ArrayList<>();
            List<Entry> written = new ArrayList<>();
            for (Entry e : store.read().entries().values()) {
                if (e.token().equals(entry.token()) && e.leaseExpiry() > now) {
                    read.add(e);
                    written.add(new Entry(e.machineId(), e.generation() + 1, now, e.highWater(), token, e.owner(), 0));
                }
            }
            if (read.isEmpty()) {
                return 0;
            }
            if (store.rewrite(read, written).succeeded()) {
                return read.size();
            }
        }
        return 0;
    }

    /** The command timeout, twice (a write and its recovery), plus the second close() may wait for the store. */
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
