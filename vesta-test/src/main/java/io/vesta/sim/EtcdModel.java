package io.vesta.sim;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdRange;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A model of etcd's semantics and of the etcd lease protocol of issue 26 (vesta-etcd): one key per machine ID,
 * {@code /vesta/machine-ids/0007}, whose value is {@code generation|leaseExpiry|highWater|token|owner}, and a key
 * {@code /vesta/machine-ids/store} holding the store mark {@code clusterId|settleUntil}.
 * <p>etcd, as modelled: one global revision that every successful transaction moves on by one, whatever it puts; each
 * key's create and mod revision (all puts of a transaction get its revision); transactions whose compares
 * ({@code mod_revision(key) == r}, or {@code create_revision(key) == 0} for an absent key) and puts apply atomically at
 * one instant; linearizable range reads; every response carries a header with the revision and the cluster ID. Its
 * faults: leader changes and member restarts now and then, during whose election a request fails, and a write that
 * fails may have been applied, or may still be committed by the new leader when the election ends (the client cannot
 * tell); no acknowledged write is lost by them. Now and then the cluster is restored from one of its older snapshots,
 * the first of them taken before any node ran (a backup older than the prefix): every later write is lost, the cluster
 * gets a new cluster ID, and its revision either goes back to the snapshot's or is bumped past every revision it had
 * ({@code etcdutl snapshot restore --bump-revision}).
 * <p>The node side, as the protocol says:
 * <ul>
 * <li>a claim reads the whole prefix in one range read and walks it with {@link LeaseClaimWalk}; it takes a block in
 *     one transaction comparing every key's mod revision as read (create revision 0 for an absent one) and the store
 *     mark's; it settles (its IDs start only after lease + max clock skew from now, written in a new mark) when the
 *     mark names another cluster than the read's header, or when there is no mark at all (see below); a claim whose
 *     transaction's header names another cluster than its read is not used;</li>
 * <li>a renewal and a release are one transaction comparing every key's mod revision to the fence; a response whose
 *     header names another cluster than the claim's loses the lease; a failed compare reads the keys and, when every
 *     one still carries the claim's token and generation (an earlier write of this node landed although its reply was
 *     lost), adopts their mod revisions and tries once more.</li>
 * </ul>
 * The simulation found two holes in the protocol as first written, both fixed here (and to be in vesta-etcd):
 * <ul>
 * <li>it let a prefix with neither a mark nor a lease key go without a settle, as a new one; a restore from a snapshot
 *     older than the prefix makes a used prefix look exactly like that while the former holders still issue (seed
 *     {@code 213:ETCD:ETCD_EMPTY_PREFIX_WITHOUT_SETTLE}). A missing mark now always settles: one wait of lease + skew
 *     on a prefix's first claim ever;</li>
 * <li>it checked the cluster ID of a claim's read only: a claim transaction delayed across a restore to a snapshot
 *     in which its keys and the mark were absent finds its {@code create_revision == 0} compares true again, and
 *     lands without the settle the new cluster needs (seed {@code 3476:ETCD:ETCD_CLAIM_IGNORES_CLUSTER_CHANGE}). A
 *     claim whose transaction was answered by another cluster than its read is now not used.</li>
 * </ul>
 * <p>Left out: etcd's own leases (the protocol attaches none), compaction, watches, and an operator's end of a lease.
 */
final class EtcdModel {

    static final String PREFIX = "/vesta/machine-ids/";
    static final String MARK_KEY = PREFIX + "store";
    /** The end of a range read of the whole prefix: the prefix with its last byte plus one, as etcd clients do it. */
    private static final String PREFIX_END = "/vesta/machine-ids0";
    private static final String CLUSTER_CHANGED = "the etcd cluster changed: restored from a snapshot?";

    /** A lease key's value, {@code generation|leaseExpiry|highWater|token|owner}; {@code tenure} is the sim's. */
    record Entry(long machineId, long generation, long leaseExpiry, long highWater, String token, String owner,
            Tenure tenure) implements ModelBackend.Leased<Entry> {

        @Override
        public Entry written(long expiry, long highWater) {
            return new Entry(machineId, generation, expiry, highWater, token, owner, tenure);
        }

        @Override
        public String toString() {
            return generation + "|" + leaseExpiry + "|" + highWater + "|" + token + "|" + owner;
        }
    }

    /** The store mark's value, {@code clusterId|settleUntil}. */
    record Mark(long clusterId, long settleUntil) {
        @Override
        public String toString() {
            return hex(clusterId) + "|" + settleUntil;
        }
    }

    /** A key as etcd keeps it. */
    record Kv(Object value, long createRevision, long modRevision) {
    }

    /** A response header: the store's revision when it answered, and the cluster that answered. */
    record Header(long revision, long clusterId) {
        @Override
        public String toString() {
            return "revision " + revision + " of cluster " + hex(clusterId);
        }
    }

    /** {@code mod_revision(key) == modRevision}, or {@code create_revision(key) == 0} when modRevision is 0. */
    record Compare(String key, long modRevision) {
    }

    record Put(String key, Object value) {
    }

    /** A transaction's response: whether its compares held, the header, and the first key whose compare failed. */
    record TxnResponse(boolean succeeded, Header header, String failed) {
        @Override
        public String toString() {
            return (succeeded ? "succeeded" : "failed on " + failed) + " at " + header;
        }
    }

    record RangeResponse(Header header, TreeMap<String, Kv> kvs) {
        @Override
        public String toString() {
            return kvs.size() + " keys at " + header;
        }
    }

    /** What a request came to: a response, or the error the client got (the request may have been applied). */
    private record Reply<T>(T response, String error) {
        @Override
        public String toString() {
            return error != null ? error : String.valueOf(response);
        }
    }

    /** A saved snapshot of the keyspace. */
    private record Saved(TreeMap<String, Kv> data, long revision, long at) {
    }

    /** The fence of a node's writes: each key's mod revision, the claim's token and generation, and its cluster. */
    record Fence(long[] modRevisions, String token, long generation, long clusterId, Tenure tenure)
            implements ModelBackend.Fenced {

        Fence at(long revision) {
            long[] revisions = new long[modRevisions.length];
            java.util.Arrays.fill(revisions, revision);
            return new Fence(revisions, token, generation, clusterId, tenure);
        }

        @Override
        public String toString() {
            return "mod revisions " + java.util.Arrays.toString(modRevisions) + ", token " + token + " on cluster "
                    + hex(clusterId) + " of tenure " + tenure.number;
        }
    }

    /** One read of the whole prefix for a claim. */
    record Snapshot(Header header, TreeMap<Long, Entry> entries, Map<Long, Long> modRevisions, Mark mark,
            long markRevision) {
    }

    private final Simulation sim;
    private TreeMap<String, Kv> data = new TreeMap<>();
    private long revision = 1;
    private long clusterId;
    private final List<Saved> snapshots = new ArrayList<>();
    /** Until when the cluster has no leader (an election after a leader change, a restart, a restore). */
    private long electionUntil = Long.MIN_VALUE;
    private long tokens;

    EtcdModel(Simulation sim) {
        this.sim = sim;
        this.clusterId = newClusterId();
        snapshots.add(new Saved(new TreeMap<>(data), revision, sim.scheduler.now()));
    }

    Backend backend(Simulation.Run run) {
        return new Backend(sim, run);
    }

    static String hex(long id) {
        return HexFormat.of().toHexDigits(id);
    }

    static String key(long machineId) {
        return PREFIX + String.format("%04d", machineId);
    }

    private long newClusterId() {
        return sim.scheduler.random().nextLong();
    }

    private Header header() {
        return new Header(revision, clusterId);
    }

    /** Snapshots, leader changes and member restarts, and restores from a snapshot. */
    void schedule() {
        sim.scheduler.after(sim.scheduler.between(500, 3_000), this::save);
        sim.scheduler.after(sim.scheduler.between(1_000, 6_000), this::leaderChange);
        sim.scheduler.after(sim.scheduler.between(3_000, 12_000), this::restore);
    }

    private void save() {
        snapshots.add(new Saved(new TreeMap<>(data), revision, sim.scheduler.now()));
        sim.trace("etcd saves a snapshot at revision " + revision);
        sim.scheduler.after(sim.scheduler.between(500, 3_000), this::save);
    }

    private void leaderChange() {
        long election = sim.scheduler.between(100, 1_000);
        electionUntil = Math.max(electionUntil, sim.scheduler.now() + election);
        sim.trace("etcd " + (sim.scheduler.chance(0.5) ? "leader changes" : "leader member restarts") + ": no leader"
                + " for " + election + " ms");
        sim.scheduler.after(sim.scheduler.between(1_000, 6_000), this::leaderChange);
    }

    /**
     * The cluster is restored from an older snapshot (the first, empty one now and then): later writes are lost, a
     * new cluster ID, and the revision the snapshot's or bumped past every revision the cluster had.
     */
    private void restore() {
        Saved from = sim.scheduler.chance(0.2) ? snapshots.get(0)
                : snapshots.get((int) sim.scheduler.between(0, snapshots.size() - 1));
        boolean bump = sim.scheduler.chance(0.5);
        long was = revision;
        data = new TreeMap<>(from.data());
        revision = bump ? was + sim.scheduler.between(1, 1_000) : from.revision();
        clusterId = newClusterId();
        long outage = sim.scheduler.between(200, 1_500);
        electionUntil = Math.max(electionUntil, sim.scheduler.now() + outage);
        sim.trace("etcd is restored from its snapshot of +" + (from.at() - Simulation.START) + " (revision "
                + from.revision() + ", " + from.data().size() + " keys) as cluster " + hex(clusterId) + ", revision "
                + was + " -> " + revision + (bump ? " (bumped)" : " (gone back)") + ", down for " + outage + " ms");
        sim.scheduler.after(sim.scheduler.between(4_000, 12_000), this::restore);
    }

    /**
     * One request at the cluster. With a leader it is served at once; during an election it fails, and a write that
     * fails was either dropped, applied, or is committed by the new leader when the election ends.
     */
    private <T> Reply<T> serve(String what, Supplier<T> request, boolean write) {
        long now = sim.scheduler.now();
        if (now >= electionUntil) {
            return new Reply<>(request.get(), null);
        }
        double roll = sim.scheduler.random().nextDouble();
        if (!write || roll < 0.4) {
            return new Reply<>(null, "etcdserver: no leader");
        }
        if (roll < 0.7) {
            T applied = request.get();
            return new Reply<>(null, "etcdserver: leader changed (applied: " + applied + ")");
        }
        long cluster = clusterId;
        sim.scheduler.at(electionUntil, () -> {
            if (clusterId == cluster) {
                sim.trace("etcd commits " + what + " after the election -> " + request.get());
            }
        });
        return new Reply<>(null, "etcdserver: request timed out (committed later)");
    }

    /** A transaction: the puts {@code puts} makes, all at the next revision, if every compare holds. */
    private TxnResponse txn(List<Compare> compares, Supplier<List<Put>> puts) {
        for (Compare compare : compares) {
            Kv kv = data.get(compare.key());
            boolean holds = compare.modRevision() == 0 ? kv == null
                    : kv != null && kv.modRevision() == compare.modRevision();
            if (!holds) {
                return new TxnResponse(false, header(), compare.key());
            }
        }
        revision++;
        for (Put put : puts.get()) {
            Kv was = data.get(put.key());
            data.put(put.key(), new Kv(put.value(), was == null ? revision : was.createRevision(), revision));
        }
        return new TxnResponse(true, header(), null);
    }

    /** A linearizable range read of {@code [from, to)}. */
    private RangeResponse range(String from, String to) {
        return new RangeResponse(header(), new TreeMap<>(data.subMap(from, true, to, false)));
    }

    final class Backend extends ModelBackend<Fence> {

        Backend(Simulation sim, Simulation.Run run) {
            super(sim, run);
        }

        @Override
        public String store() {
            return "etcd sim prefix " + PREFIX;
        }

        /** A request through the network to the cluster; an error the cluster answered with is an IOException. */
        private <T> T etcd(String what, Supplier<T> request, boolean write) throws IOException {
            Reply<T> reply = call(what, () -> serve(run.label + " " + what, request, write));
            if (reply.error() != null) {
                throw new IOException(what + ": " + reply.error());
            }
            return reply.response();
        }

        @Override
        public LeaseClaim<Fence> claim(MachineIdRange range, int blockSize, boolean startUp) throws Exception {
            return claim(range, blockSize, startUp,
                    () -> snapshot(etcd("range " + PREFIX, () -> range(PREFIX, PREFIX_END), false)),
                    Snapshot::entries, (snapshot, first, block, now) -> takeBlock(snapshot,
                            settle(snapshot, run.node.clock.currentTimeMillis()), first, block, now));
        }

        private Snapshot snapshot(RangeResponse read) {
            TreeMap<Long, Entry> entries = new TreeMap<>();
            Map<Long, Long> revisions = new TreeMap<>();
            Mark mark = null;
            long markRevision = 0;
            for (Map.Entry<String, Kv> kv : read.kvs().entrySet()) {
                if (kv.getValue().value() instanceof Entry entry) {
                    entries.put(entry.machineId(), entry);
                    revisions.put(entry.machineId(), kv.getValue().modRevision());
                } else if (kv.getKey().equals(MARK_KEY)) {
                    mark = (Mark) kv.getValue().value();
                    markRevision = kv.getValue().modRevision();
                }
            }
            return new Snapshot(read.header(), entries, revisions, mark, markRevision);
        }

        /**
         * The store mark a claim writes and when its IDs may start: a new mark settling until lease + max clock skew
         * from now when the read's mark names another cluster or is missing; the mark read otherwise.
         */
        private Mark settle(Snapshot snapshot, long now) {
            long cluster = snapshot.header().clusterId();
            Mark read = snapshot.mark();
            long settled = now + lease() + sim.maxSkew;
            if (read == null) {
                boolean fresh = snapshot.entries().isEmpty()
                        && sim.scenario.defect() == Defect.ETCD_EMPTY_PREFIX_WITHOUT_SETTLE;
                return settling(new Mark(cluster, fresh ? now : settled), "no store mark");
            }
            if (read.clusterId() != cluster) {
                return settling(new Mark(cluster, sim.scenario.defect() == Defect.ETCD_NO_SETTLE_AFTER_RESTORE ? now
                        : settled), "the store mark names cluster " + hex(read.clusterId()) + ", not "
                                + hex(cluster));
            }
            return read;
        }

        private Mark settling(Mark mark, String why) {
            sim.trace(run.label + " settles until " + mark.settleUntil() + ": " + why);
            return mark;
        }

        private LeaseClaimWalk.Attempt<LeaseClaim<Fence>> takeBlock(Snapshot snapshot, Mark settle, long first,
                List<Entry> read, long now) throws IOException {
            long expiry = now + lease();
            Settled take = Settled.of(read, run.node.owner, settle.settleUntil(), now, expiry);
            String token = "t" + ++tokens;
            long highWater = take.highWater();
            long nextGeneration = take.generation();
            Long notBefore = take.notBefore();
            MachineIdBlock block = new MachineIdBlock(first, read.size());
            List<Compare> compares = new ArrayList<>();
            for (int i = 0; i < read.size(); i++) {
                compares.add(new Compare(key(first + i), read.get(i) == null ? 0
                        : snapshot.modRevisions().get(first + i)));
            }
            compares.add(new Compare(MARK_KEY, snapshot.markRevision()));
            Tenure[] began = new Tenure[1];
            TxnResponse response = etcd("claim " + block + (settle.equals(snapshot.mark()) ? ""
                    : " with mark " + settle), () -> txn(compares, () -> {
                        Tenure tenure = sim.checker.begin(block, run.node.owner, run.label,
                                sim.scheduler.now() - Simulation.START, notBefore, highWater);
                        began[0] = tenure;
                        List<Put> puts = new ArrayList<>();
                        for (int i = 0; i < read.size(); i++) {
                            puts.add(new Put(key(first + i), new Entry(first + i, nextGeneration, expiry, highWater,
                                    token, run.node.owner, tenure)));
                        }
                        if (!settle.equals(snapshot.mark())) {
                            puts.add(new Put(MARK_KEY, settle));
                        }
                        return puts;
                    }), true);
            if (response.header().clusterId() != snapshot.header().clusterId()
                    && sim.scenario.defect() != Defect.ETCD_CLAIM_IGNORES_CLUSTER_CHANGE) {
                sim.trace(run.label + " claim " + block + ": answered by another cluster than it read, read again");
                return LeaseClaimWalk.Attempt.stale();
            }
            if (!response.succeeded()) {
                return response.failed().equals(MARK_KEY) ? LeaseClaimWalk.Attempt.<LeaseClaim<Fence>>stale()
                        : LeaseClaimWalk.Attempt.<LeaseClaim<Fence>>lost();
            }
            Fence fence = new Fence(new long[read.size()], token, nextGeneration, response.header().clusterId(),
                    began[0]).at(response.header().revision());
            return LeaseClaimWalk.Attempt.taken(new LeaseClaim<>(block, expiry, notBefore, take.takenFrom(),
                    fence));
        }

        @Override
        public Renewal<Fence> renew(LeaseClaim<Fence> held, long expiry, long highWater) throws Exception {
            return write(held, "renew", expiry, highWater);
        }

        @Override
        public boolean release(LeaseClaim<Fence> held, long now, long highWater) throws Exception {
            return write(held, "release", now, highWater).isRenewed();
        }

        /**
         * A renewal's or release's transaction under the fence; on a failed compare, a read of the keys and, if every
         * one still carries this claim's token and generation, their mod revisions adopted and one more try.
         */
        private Renewal<Fence> write(LeaseClaim<Fence> held, String what, long expiry, long highWater)
                throws IOException {
            Fence fence = held.fence();
            MachineIdBlock block = held.block();
            TxnResponse response = put(held, fence, what, expiry, highWater);
            if (changed(response.header(), fence)) {
                return Renewal.lost(CLUSTER_CHANGED);
            }
            if (response.succeeded()) {
                return Renewal.renewed(fence.at(response.header().revision()));
            }
            RangeResponse keys = etcd("range " + block, () -> range(key(block.first()), key(block.last() + 1)),
                    false);
            if (changed(keys.header(), fence)) {
                return Renewal.lost(CLUSTER_CHANGED);
            }
            long[] adopted = new long[block.size()];
            for (int i = 0; i < block.size(); i++) {
                Kv kv = keys.kvs().get(key(block.first() + i));
                String lost = carries(kv, fence);
                if (lost != null) {
                    return Renewal.lost("the key " + key(block.first() + i) + " " + lost);
                }
                adopted[i] = kv.modRevision();
            }
            Fence again = new Fence(adopted, fence.token(), fence.generation(), fence.clusterId(), fence.tenure());
            sim.trace(run.label + " " + what + " " + block + ": the keys still carry token " + fence.token()
                    + ", a write of ours landed: adopts " + again);
            response = put(held, again, what + " again", expiry, highWater);
            if (changed(response.header(), fence)) {
                return Renewal.lost(CLUSTER_CHANGED);
            }
            return response.succeeded() ? Renewal.renewed(fence.at(response.header().revision()))
                    : Renewal.lost("the keys of " + block + " changed again");
        }

        private TxnResponse put(LeaseClaim<Fence> held, Fence fence, String what, long expiry, long highWater)
                throws IOException {
            MachineIdBlock block = held.block();
            List<Compare> compares = new ArrayList<>();
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < block.size(); i++) {
                compares.add(new Compare(key(block.first() + i), fence.modRevisions()[i]));
                puts.add(new Put(key(block.first() + i), new Entry(block.first() + i, fence.generation(), expiry,
                        highWater, fence.token(), run.node.owner, fence.tenure())));
            }
            return etcd(what + " " + block + " to " + expiry + " under " + fence, () -> txn(compares, () -> {
                fence.tenure().landed(highWater);
                return puts;
            }), true);
        }

        /** Whether a response came from another cluster than the claim's (never, with the defect). */
        private boolean changed(Header header, Fence fence) {
            return header.clusterId() != fence.clusterId()
                    && sim.scenario.defect() != Defect.ETCD_RENEWAL_IGNORES_CLUSTER_ID;
        }

        /** Null when {@code kv} still carries {@code fence}'s token and generation; else what it carries instead. */
        private String carries(Kv kv, Fence fence) {
            if (kv == null) {
                return "was deleted";
            }
            Entry entry = (Entry) kv.value();
            if (sim.scenario.defect() == Defect.ETCD_ADOPTS_WITHOUT_TOKEN_CHECK) {
                return null;
            }
            if (!entry.token().equals(fence.token()) || entry.generation() != fence.generation()) {
                return "carries owner '" + entry.owner() + "''s token " + entry.token() + " (generation "
                        + entry.generation() + "), not this claim's " + fence.token() + " (generation "
                        + fence.generation() + ")";
            }
            return null;
        }
    }
}
