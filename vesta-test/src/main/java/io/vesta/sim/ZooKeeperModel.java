package io.vesta.sim;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdRange;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A model of the ZooKeeper namespace of vesta-zookeeper's {@code ZooKeeperMachineIdProvider}: one persistent
 * sequential node per owner, {@code forever/{owner}-{sequence}}, whose data is {@code (machineId, time, until,
 * closed, process)} ({@code time} by the writer's clock, {@code process} the writing process's mark) with a version
 * every write moves on, and one ephemeral node {@code live/{owner}} per process, which goes when the process's session
 * expires (no call from it for the session timeout, the lease).
 * <ul>
 * <li>A claim reads the nodes and takes, in this order, the owner's own node with a write conditional on the version
 *     it read (its IDs start after the {@code until} it read), else a new sequential node when the sequence is still
 *     inside the range (sequence {@code s} holds the {@code s}-th block in the range's order, from the top down for a
 *     descending range), else a node of another owner that is released or has not been written for
 *     {@code reclaimAfter} by the server's clock (a multi-op: delete at the version read, create for this owner; IDs
 *     start after its {@code until}).</li>
 * <li>A report (renewal) and a release write {@code until} at the version the node last wrote; when the version has
 *     moved on, they read the node and, if it still carries this process's mark and this machine ID, write again at
 *     the version read (the write of a report whose answer was lost moved it), as {@code ZooKeeperLeaseBackend}
 *     does. The time written is never behind one this process already tried. A start refuses a clock behind the
 *     time its own node records.</li>
 * <li>At start-up the owner's live node must be free or this process's: a crashed process's goes when its session
 *     expires.</li>
 * </ul>
 * Simplifications: a sequential node is created with its data in one operation; the clock checks against the other
 * nodes' reports are not modelled; ZooKeeper loses nothing it acknowledged; no operator ends a lease (the real
 * re-write also refuses a node an operator released).
 */
final class ZooKeeperModel {

    record ZNode(String path, String owner, long sequence, long machineId, long mtime, long time, long until,
            boolean closed, String process, int version, Tenure tenure) {
    }

    /** The fence of a node's writes: its node and the version it last wrote, and its tenure. */
    record Fence(String path, int version, Tenure tenure) implements ModelBackend.Fenced {
        @Override
        public String toString() {
            return path + " version " + version + " of tenure " + tenure.number;
        }
    }

    private static final class Session {
        final long id;
        long lastSeen;

        Session(long id, long now) {
            this.id = id;
            this.lastSeen = now;
        }
    }

    private final Simulation sim;
    private final TreeMap<String, ZNode> forever = new TreeMap<>();
    /** Owner to the session holding its live node. */
    private final Map<String, Session> live = new HashMap<>();
    private long sequence;
    private long sessions;
    private final long reclaimAfter;

    ZooKeeperModel(Simulation sim) {
        this.sim = sim;
        this.reclaimAfter = 2 * sim.lease;
    }

    Backend backend(Simulation.Run run) {
        return new Backend(sim, run);
    }

    private long now() {
        return sim.scheduler.now();
    }

    private boolean expired(Session session) {
        return now() - session.lastSeen > sim.lease;
    }

    /** What a versioned write found instead of landing: the node gone, or at another version. */
    private static final int NO_NODE = -1;
    private static final int BAD_VERSION = -2;
    /** A write again at the version read found the version moved on again: the real one throws BadVersion. */
    private static final int MOVED_AGAIN = -3;

    /**
     * A write of {@code time}, {@code until} and {@code process}'s mark at {@code version}, on behalf of
     * {@code tenure}: the new version, or {@link #NO_NODE} or {@link #BAD_VERSION}.
     */
    private int write(String path, int version, Tenure tenure, long time, long until, boolean closed, String process) {
        ZNode node = forever.get(path);
        if (node == null) {
            return NO_NODE;
        }
        if (node.version() != version) {
            return BAD_VERSION;
        }
        forever.put(path, new ZNode(path, node.owner(), node.sequence(), node.machineId(), now(), time, until, closed,
                process, version + 1, node.tenure()));
        tenure.landed(until);
        return version + 1;
    }

    final class Backend extends ModelBackend<Fence> {

        private Session session;
        /** This process's mark in the nodes it writes (the real one is random, a run's label is unique here). */
        private final String process;
        /** The latest time this process wrote or tried to write: a write may land with its answer lost. */
        private long lastTime;

        Backend(Simulation sim, Simulation.Run run) {
            super(sim, run);
            this.process = run.label;
        }

        @Override
        public String store() {
            return "ZooKeeper sim namespace default";
        }

        @Override
        public String renewalName() {
            return "report";
        }

        /** At the server: this process's session, a new one once it expired (its live node gone with it). */
        private Session touch() {
            if (session == null || expired(session)) {
                if (session != null && live.get(run.node.owner) == session) {
                    live.remove(run.node.owner);
                }
                session = new Session(++sessions, now());
            }
            session.lastSeen = now();
            return session;
        }

        @Override
        public LeaseClaim<Fence> claim(MachineIdRange range, int blockSize, boolean startUp) throws Exception {
            String owner = run.node.owner;
            for (int attempt = 0; attempt < 16; attempt++) {
                List<ZNode> nodes = call("read", () -> {
                    Session mine = touch();
                    Session holder = live.get(owner);
                    if (holder != null && holder != mine && !expired(holder)) {
                        return null;
                    }
                    live.put(owner, mine);
                    return new ArrayList<>(forever.values());
                });
                if (nodes == null) {
                    throw unavailable("Another live process holds owner '" + owner + "'");
                }
                long now = run.node.clock.currentTimeMillis();
                ZNode own = nodes.stream().filter(n -> n.owner().equals(owner)).findFirst().orElse(null);
                lastTime = now;
                if (own != null && now < own.time()) {
                    throw unavailable("This node's clock is behind the time it last reported");
                }
                if (own != null && (startUp || own.until() <= now)) {
                    long until = now + lease();
                    long mark = own.until();
                    MachineIdBlock block = new MachineIdBlock(own.machineId(), blockSize);
                    LeaseClaim<Fence> claim = call("take own " + own.path(), () -> {
                        ZNode is = forever.get(own.path());
                        if (is == null || is.version() != own.version()) {
                            return null;
                        }
                        Tenure tenure = sim.checker.begin(block, owner, run.label, now() - Simulation.START, mark,
                                Math.max(until, mark));
                        forever.put(own.path(), new ZNode(own.path(), owner, own.sequence(), own.machineId(), now(),
                                now, Math.max(until, mark), false, process, own.version() + 1, tenure));
                        return new LeaseClaim<>(block, until, mark, null,
                                new Fence(own.path(), own.version() + 1, tenure));
                    });
                    if (claim != null) {
                        return began(claim);
                    }
                    continue;
                }
                if (own != null) {
                    throw unavailable("This owner's node " + own.path() + " is still leased");
                }
                long until = now + lease();
                LeaseClaim<Fence> created = call("create", () -> {
                    long seq = sequence++;
                    if (seq >= range.blocks(blockSize)) {
                        return null;
                    }
                    // Sequence s holds the s-th block in the range's order, as the namespace's recorded layout maps it.
                    long first = range.blockStart(range.blockInOrder(seq, blockSize), blockSize);
                    MachineIdBlock block = new MachineIdBlock(first, blockSize);
                    String path = owner + "-" + seq;
                    Tenure tenure = sim.checker.begin(block, owner, run.label, now() - Simulation.START, null, until);
                    forever.put(path, new ZNode(path, owner, seq, block.first(), now(), now, until, false, process, 0,
                            tenure));
                    return new LeaseClaim<>(block, until, null, null, new Fence(path, 0, tenure));
                });
                if (created != null) {
                    return began(created);
                }
                long serverNow = now();
                for (ZNode stale : nodes) {
                    boolean silent = stale.closed() || serverNow - stale.mtime() > reclaimAfter;
                    if (stale.owner().equals(owner) || !silent) {
                        continue;
                    }
                    long mark = stale.until();
                    MachineIdBlock block = new MachineIdBlock(stale.machineId(), blockSize);
                    LeaseClaim<Fence> reclaimed = call("reclaim " + stale.path(), () -> {
                        ZNode is = forever.get(stale.path());
                        if (is == null || is.version() != stale.version()) {
                            return null;
                        }
                        forever.remove(stale.path());
                        long seq = sequence++;
                        String path = owner + "-" + seq;
                        long written = Math.max(until, mark);
                        Tenure tenure = sim.checker.begin(block, owner, run.label, now() - Simulation.START, mark,
                                written);
                        forever.put(path, new ZNode(path, owner, seq, stale.machineId(), now(), now, written, false,
                                process, 0, tenure));
                        return new LeaseClaim<>(block, until, mark, stale.owner(), new Fence(path, 0, tenure));
                    });
                    if (reclaimed != null) {
                        return began(reclaimed);
                    }
                }
                throw unavailable("No machine ID is free in range " + range + " and none has gone silent");
            }
            throw unavailable("Gave up registering: the nodes kept changing");
        }

        @Override
        public Renewal<Fence> renew(LeaseClaim<Fence> held, long expiry, long highWater) throws Exception {
            String path = held.fence().path();
            lastTime = Math.max(run.node.clock.currentTimeMillis(), lastTime);
            int version = write(held, "report", lastTime, highWater, false, () -> { });
            if (version == NO_NODE) {
                return Renewal.lost(path + " was deleted: another node reclaimed it");
            }
            if (version == BAD_VERSION) {
                return Renewal.lost(path + " was rewritten by another process");
            }
            if (version == MOVED_AGAIN) {
                throw new IOException(path + " moved on again: BadVersion");
            }
            return Renewal.renewed(new Fence(path, version, held.fence().tenure()));
        }

        @Override
        public boolean release(LeaseClaim<Fence> held, long now, long highWater) throws Exception {
            lastTime = Math.max(now, lastTime);
            return write(held, "release", lastTime, highWater, true, () -> {
                if (live.get(run.node.owner) == session) {
                    live.remove(run.node.owner);
                }
            }) >= 0;
        }

        /**
         * {@code ZooKeeperLeaseBackend.write}: a write at the held version; when the version moved on, a read of the
         * node and, if it still carries this process's mark and this machine ID, a write again at the version read.
         * The new version, or {@link #NO_NODE}, or {@link #BAD_VERSION} when the node is not this process's, or
         * {@link #MOVED_AGAIN} when the second write found the version moved on again (the real one throws).
         */
        private int write(LeaseClaim<Fence> held, String what, long time, long until, boolean closing,
                Runnable atFirst) throws IOException {
            Fence fence = held.fence();
            Tenure tenure = fence.tenure();
            int version = call(what + " " + fence.path() + " at version " + fence.version() + " until " + until,
                    () -> {
                        touch();
                        atFirst.run();
                        return ZooKeeperModel.this.write(fence.path(), fence.version(), tenure, time, until, closing,
                                process);
                    });
            if (version != BAD_VERSION) {
                return version;
            }
            ZNode found = call("read " + fence.path(), () -> {
                touch();
                return forever.get(fence.path());
            });
            if (found == null) {
                return NO_NODE;
            }
            boolean ours = found.machineId() == held.block().first()
                    && (sim.scenario.defect() == Defect.ZOOKEEPER_REWRITE_OF_ANOTHER_PROCESS_NODE
                            || found.process().equals(process));
            if (!ours) {
                sim.trace(run.label + " " + what + ": " + fence.path() + " carries " + found.process()
                        + "'s mark, not this process's");
                return BAD_VERSION;
            }
            int again = call(what + " again " + fence.path() + " at version " + found.version() + " until " + until,
                    () -> {
                        touch();
                        return ZooKeeperModel.this.write(fence.path(), found.version(), tenure, time, until, closing,
                                process);
                    });
            return again == BAD_VERSION ? MOVED_AGAIN : again;
        }
    }
}
