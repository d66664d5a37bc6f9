package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.vesta.InvalidSettingException;
import io.vesta.machine.DefaultOwner;
import io.vesta.machine.LeaseClaimWalk;
import io.vesta.machine.LeaseLifecycle;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.redis.RedisLeaseStore.Entry;
import io.vesta.machine.redis.RedisLeaseStore.Snapshot;
import io.vesta.machine.redis.RedisLeaseStore.StoreMark;
import io.vesta.machine.redis.RedisLeaseStore.Write;
import io.vesta.time.TimeSource;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * Machine IDs leased from a Redis hash, with the guarantees of the database strategy: any number of nodes draw from
 * one range, a restart gets its ID back, a node whose lease runs out stops issuing, and whoever takes an ID over
 * starts after everything its previous holder could have issued. Talks to Redis through Lettuce; the application's
 * {@link RedisClient} may be shared (the provider opens one connection of its own).
 *
 * <p>The hash (by default {@value #DEFAULT_KEY}) holds one field per machine ID, {@code
 * generation|leaseExpiry|highWater|token|owner}, and a field {@code store}. Every read and write is one Lua script,
 * which Redis runs without another command in between:
 * <ul>
 * <li>A claim (a new ID, a takeover after the lease ended, or a restart of the same owner) succeeds only if every
 *     entry it writes still holds exactly what the claimer read, so a renewal that lands between the read and the
 *     write (its expiry and high water only grow) makes the claim fail, and the claimer starts after the high water
 *     committed at the moment it took the entry ({@link #notBefore()}). Each claim writes a new random token, the
 *     fencing value.</li>
 * <li>The holder's renewals and its release write only entries that still carry its token; a takeover or an
 *     operator's release replaces the token, so the former holder's next renewal fails and it never issues under the
 *     ID again. The lease is extended only to an end Redis acknowledged, and the high water written is that end, or
 *     the high water the node took the ID over with if that is later (an operator's end leaves a high water beyond the
 *     entry's expiry).</li>
 * </ul>
 * Both bounds are the holder's own clock readings, so, as with the database strategy, this holds however far apart the
 * nodes' clocks are.
 *
 * <p>What Redis may lose: a server restarted without persistence forgets every lease, one restarted from a snapshot
 * or an append-only file may forget the last writes, and a replica promoted by a failover may lack writes the old
 * primary acknowledged. The hash's {@code store} field records the server instance the last claim ran on: its
 * {@code run_id}, which a restart changes, and its {@code master_replid}, which every promotion changes (a primary
 * demoted and promoted back without a restart keeps its {@code run_id}, yet may lack what its replacement
 * acknowledged). A claim that finds it missing, or naming another instance, cannot trust what it reads, and starts
 * only after every lease that could have been lost has ended: the lease plus {@link Builder#maxClockSkew the allowed
 * clock skew} after the change. When the whole hash is gone, the time that has surely passed since the server started
 * comes off that wait (its uptime less a second, since Redis rounds it up to a whole second; nothing on a server
 * promoted from a replica), so a fresh key on a server that has been up longer costs no wait. Meanwhile a holder whose
 * entry is gone stops issuing
 * ({@link MachineIdLease}); one whose entry survived renews it as before. This part does depend on the clocks: the
 * nodes sharing a key must agree within {@code max-clock-skew} and use the same lease. The key must never be evicted
 * ({@code maxmemory-policy noeviction} or a {@code volatile-*} policy: the key has no TTL) and never edited by hand;
 * {@link #leases()} lists and ends leases safely.
 */
public final class RedisMachineIdProvider implements MachineIdProvider {

    /** The default hash key. */
    public static final String DEFAULT_KEY = "vesta:machine-ids";
    /** The default lease: how long an entry stays this node's after its last successful heartbeat. */
    public static final Duration DEFAULT_LEASE = LeaseLifecycle.DEFAULT_LEASE;
    /** The default interval between heartbeats. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(5);
    /** The default bound on how far apart the clocks of the nodes sharing a key may be. */
    public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofSeconds(1);
    public static final Duration MIN_LEASE = Duration.ofSeconds(1);
    public static final Duration MAX_LEASE = Duration.ofHours(1);
    public static final Duration MIN_HEARTBEAT = Duration.ofMillis(10);
    public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(1);
    /** The longest owner name. */
    public static final int MAX_OWNER_LENGTH = 255;
    /** The longest key. */
    public static final int MAX_KEY_LENGTH = 512;
    /** The shortest command timeout, whatever the heartbeat. */
    private static final Duration MIN_COMMAND_TIMEOUT = Duration.ofSeconds(1);
    /** How long {@link #close()} waits for a heartbeat that is in Redis before it gives up releasing. */
    private static final long CLOSE_WAIT_FOR_REDIS_MILLIS = 1_000;

    private static final System.Logger LOG = System.getLogger(RedisMachineIdProvider.class.getName());

    private final RedisLeaseStore store;
    private final String key;
    private final String owner;
    private final long leaseMillis;
    private final long heartbeatMillis;
    private final long maxClockSkewMillis;
    private final Duration commandTimeout;
    private final TimeSource timeSource;
    private final LeaseLifecycle lifecycle;
    /** Held across every Redis call of acquire, heartbeat and release; close() waits for it only within a bound. */
    private final ReentrantLock redis = new ReentrantLock();
    private final RedisMachineIdLeases leases;

    private volatile Long notBefore;
    private volatile String takenFrom;
    private volatile MachineIdBlock block;
    /** What acquire claimed in, so that a regain claims the same way; set under the redis lock. */
    private MachineIdRange range;
    private int blockSize;
    /** The fencing token of this node's claim; every write of ours presents it. */
    private String token;
    private long generation;
    private volatile long lastWrittenExpiry;
    /** The last expiry (and high water) Redis acknowledged: the node never issues past it. */
    private long confirmedExpiry;
    /** Test seam: runs between the read that found entries takeable and the script that takes them. */
    volatile Runnable beforeTakeOver;
    /** Test seam: what a claim makes of each read of the hash (a server reporting its uptime as Redis may). */
    volatile UnaryOperator<Snapshot> afterRead = UnaryOperator.identity();

    private RedisMachineIdProvider(Builder builder) {
        this.key = builder.key;
        this.owner = builder.owner;
        this.leaseMillis = builder.lease.toMillis();
        this.heartbeatMillis = builder.heartbeat.toMillis();
        this.maxClockSkewMillis = builder.maxClockSkew.toMillis();
        this.timeSource = builder.timeSource;
        Duration timeout = builder.heartbeat.compareTo(MIN_COMMAND_TIMEOUT) < 0 ? MIN_COMMAND_TIMEOUT : builder.heartbeat;
        this.commandTimeout = timeout.compareTo(builder.lease) > 0 ? builder.lease : timeout;
        boolean ownsClient = builder.client == null;
        RedisClient client = ownsClient ? builder.clientResources != null ? RedisClient.create(builder.clientResources)
                : RedisClient.create() : builder.client;
        this.store = new RedisLeaseStore(client, builder.uri, ownsClient, key, builder.server, commandTimeout);
        this.lifecycle = new LeaseLifecycle(owner, key, "heartbeat", timeSource, LOG).regainWith(this::regain);
        this.leases = new RedisMachineIdLeases(store, timeSource, id -> {
            MachineIdBlock held = block;
            return held != null && id >= held.first() && id <= held.last() && !lifecycle.isClosed() && !lifecycle.isLost();
        });
    }

    /**
     * A provider that connects to {@code uri} on a client of its own, which {@link #close()} shuts down; on the
     * application's Lettuce {@link ClientResources} (event loops, DNS) if {@link Builder#clientResources} is given.
     */
    public static Builder builder(RedisURI uri) {
        return new Builder(null, uri);
    }

    /**
     * A provider that connects to {@code uri} through {@code client}, which stays the caller's: {@link #close()} closes
     * only the provider's connection.
     */
    public static Builder builder(RedisClient client, RedisURI uri) {
        InvalidSettingException.requireSet("client", client, "an io.lettuce.core.RedisClient");
        return new Builder(client, uri);
    }

    @Override
    public long acquire(MachineIdRange range) {
        return acquire(range, 1);
    }

    /**
     * Leases a whole aligned block of {@code blockSize} machine IDs, one entry each, in one script: all of the block or
     * none of it, under one token, renewed and released together.
     */
    @Override
    public long acquire(MachineIdRange range, int blockSize) {
        MachineIdRange.requireBlockSize("blockSize", blockSize);
        redis.lock();
        try {
            lifecycle.requireUnused("RedisMachineIdProvider", () -> block.describe());
            Claim claim = claimBlock(range, blockSize, true);
            this.range = range;
            this.blockSize = blockSize;
            hold(claim, blockSize);
            if (!lifecycle.start(block, claim.expiry, claim.notBefore, Duration.ofMillis(heartbeatMillis), this::heartbeat)) {
                throw closedWhileAcquiring(claim);
            }
            LOG.log(Level.INFO, () -> "Leased " + block.describe() + " from Redis " + store.describe() + " as owner '" + owner
                    + "'" + (claim.takenFrom != null ? ", taken over from '" + claim.takenFrom + "'" : "")
                    + (claim.notBefore != null ? " (IDs start after " + Instant.ofEpochMilli(claim.notBefore) + ")" : "")
                    + "; lease until " + Instant.ofEpochMilli(claim.expiry));
            return claim.machineId;
        } finally {
            redis.unlock();
        }
    }

    private Claim claimBlock(MachineIdRange range, int blockSize, boolean takeOwnLive) {
        try {
            return claim(range, blockSize, takeOwnLive);
        } catch (RuntimeException e) {
            if (e instanceof MachineIdUnavailableException unavailable && unavailable.getCause() == null) {
                throw unavailable;
            }
            throw new MachineIdUnavailableException("Cannot lease " + (blockSize == 1 ? "a machine ID" : "a block of "
                    + blockSize + " machine IDs") + " from Redis " + store.describe() + " (range " + range + ", owner '"
                    + owner + "'): " + e.getMessage(), e);
        }
    }

    private void hold(Claim claim, int blockSize) {
        this.block = new MachineIdBlock(claim.machineId, blockSize);
        this.token = claim.token;
        this.generation = claim.generation;
        this.lastWrittenExpiry = claim.expiry;
        this.confirmedExpiry = claim.expiry;
        this.notBefore = claim.notBefore;
        this.takenFrom = claim.takenFrom;
    }

    /**
     * The lifecycle's regain after the entries were lost: the claim of acquire again, in the same range and block size
     * (never a live entry of this owner, which is another process's), published as a new grant whose IDs start after
     * the claimed entries' high water (and after the store's settling wait, as at any claim).
     */
    private LeaseLifecycle.Regained regain() throws InterruptedException {
        redis.lockInterruptibly();
        try {
            Claim claim = claimBlock(range, blockSize, false);
            hold(claim, blockSize);
            return new LeaseLifecycle.Regained(block, claim.expiry, claim.notBefore,
                    () -> LOG.log(Level.INFO, closedWhileAcquiring(claim).getMessage()));
        } finally {
            redis.unlock();
        }
    }

    /** close() ran while the claim was in Redis: nothing was issued under it, so give the entries back here. */
    private IllegalStateException closedWhileAcquiring(Claim claim) {
        long now = timeSource.currentTimeMillis();
        String outcome;
        try {
            long mark = LeaseLifecycle.releaseMark(claim.notBefore, claim.expiry, now);
            outcome = "ok".equals(write(block, now, mark))
                    ? "the entries were released" : "the entries had already changed hands";
        } catch (RuntimeException e) {
            outcome = "the entries could not be released (" + e.getMessage() + ") and become free when their lease ends at "
                    + Instant.ofEpochMilli(claim.expiry);
        } finally {
            store.close();
        }
        return new IllegalStateException("This RedisMachineIdProvider was closed while it leased " + block.describe()
                + " from Redis " + store.describe() + "; " + outcome);
    }

    private Claim claim(MachineIdRange range, int blockSize, boolean takeOwnLive) {
        return LeaseClaimWalk.claim(range, blockSize, owner, takeOwnLive, timeSource,
                new LeaseClaimWalk.Store<Snapshot, Entry, Claim, RuntimeException>() {
                    @Override
                    public Snapshot read() {
                        return afterRead.apply(store.read());
                    }

                    @Override
                    public NavigableMap<Long, Entry> records(Snapshot snapshot) {
                        return snapshot.entries();
                    }

                    @Override
                    public LeaseClaimWalk.Attempt<Claim> take(Snapshot snapshot, long first, List<Entry> block, long now) {
                        // The wait after a store change is measured from a reading taken after the read, so that
                        // the server's uptime it subtracts can never cover more than has passed.
                        return takeBlock(snapshot, settle(snapshot, timeSource.currentTimeMillis()), first, block, now);
                    }

                    @Override
                    public RuntimeException rangeFull(MachineIdRange range, int blockSize, Collection<Entry> entries, long now) {
                        return RedisMachineIdProvider.this.rangeFull(range, blockSize, entries, now);
                    }

                    @Override
                    public RuntimeException gaveUp(int rounds) {
                        return new MachineIdUnavailableException("Gave up leasing " + (blockSize == 1 ? "a machine ID"
                                : "a block of " + blockSize + " machine IDs") + " from Redis " + store.describe() + " (range "
                                + range + ") after " + rounds + " rounds in which every candidate changed before this node"
                                + " could take it (other nodes claiming the same IDs, or a live process of owner '" + owner
                                + "' renewing its entry)");
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
                    : snapshot.promoted() ? "Redis " + store.describe() + " holds no leases and was promoted from a"
                    + " replica, which may lack writes the former primary acknowledged"
                    : "Redis " + store.describe() + " holds no leases from before the server started "
                    + snapshot.uptimeSeconds() + " s ago, and some may have been lost");
        }
        if (!mark.runId().equals(snapshot.runId())) {
            long settleUntil = now + wait;
            return new Settle(new StoreMark(snapshot.runId(), settleUntil), "Redis " + store.describe()
                    + " was last claimed on another server instance (run_id.master_replid " + mark.runId() + ", now "
                    + snapshot.runId()
                    + "): it restarted or failed over and may have lost acknowledged writes");
        }
        return new Settle(mark, mark.settleUntil() > now ? "Redis " + store.describe()
                + " restarted or failed over recently" : null);
    }

    private MachineIdUnavailableException rangeFull(MachineIdRange range, int blockSize, Collection<Entry> inRange, long now) {
        long live = inRange.stream().filter(e -> e.leaseExpiry() > now).count();
        long nextExpiry = inRange.stream().mapToLong(Entry::leaseExpiry).filter(e -> e > now).min().orElse(now);
        if (blockSize == 1) {
            return new MachineIdUnavailableException("No machine ID is free in range " + range + " of Redis "
                    + store.describe() + ": " + live + " entries hold a live lease on all " + range.size() + " IDs of the"
                    + " range (the first lease ends at " + Instant.ofEpochMilli(nextExpiry) + "). Stop a node, widen the"
                    + " range, or wait for a lease to end.");
        }
        return new MachineIdUnavailableException("No block of " + blockSize + " machine IDs is free in range " + range
                + " of Redis " + store.describe() + ": each of its " + range.blocks(blockSize) + " blocks has a live lease"
                + " on at least one of its IDs (" + live + " live entries; the first lease ends at "
                + Instant.ofEpochMilli(nextExpiry) + "). Stop a node, widen the range, lower the block size, or wait for a"
                + " lease to end.");
    }

    /** Takes every machine ID of a block in one script, or none. */
    private LeaseClaimWalk.Attempt<Claim> takeBlock(Snapshot snapshot, Settle settle, long first, List<Entry> block, long now) {
        long expiry = now + leaseMillis;
        long nextGeneration = 1;
        Long mark = null;
        String from = null;
        for (Entry entry : block) {
            if (entry != null) {
                nextGeneration = Math.max(nextGeneration, entry.generation() + 1);
                mark = mark == null ? entry.highWater() : Math.max(mark, entry.highWater());
                if (from == null && !entry.owner().equals(owner)) {
                    from = entry.owner();
                }
            }
        }
        boolean waits = settle.waitsPast(now);
        if (waits) {
            mark = mark == null ? settle.mark.settleUntil() : Math.max(mark, settle.mark.settleUntil());
        }
        String claimToken = UUID.randomUUID().toString();
        // The high water never drops below the one taken over: after an operator's end the entry's expiry is the
        // operator's clock reading, and the former holder, whose clock may run ahead, issues up to its high water.
        long highWater = mark == null ? expiry : Math.max(mark, expiry);
        List<Write> writes = new ArrayList<>(block.size());
        for (int offset = 0; offset < block.size(); offset++) {
            Entry entry = new Entry(first + offset, nextGeneration, expiry, highWater, claimToken, owner);
            writes.add(new Write(first + offset, block.get(offset), entry));
        }
        Runnable hook = beforeTakeOver;
        if (hook != null) {
            hook.run();
        }
        String result = store.claim(snapshot.runId(), snapshot.store(), settle.mark.encode(), writes);
        if ("ok".equals(result)) {
            if (waits) {
                Long settled = mark;
                LOG.log(Level.WARNING, () -> settle.reason + "; the IDs of machine ID " + first + " start after "
                        + Instant.ofEpochMilli(settled) + ", when every lease that may have been lost has ended");
            }
            return LeaseClaimWalk.Attempt.taken(new Claim(first, nextGeneration, claimToken, expiry, mark, from));
        }
        return "store".equals(result) ? LeaseClaimWalk.Attempt.stale() : LeaseClaimWalk.Attempt.lost();
    }

    /** Renews the lease; returns whether it is held afterwards. Runs on the heartbeat thread (and from tests). */
    boolean heartbeat() {
        redis.lock();
        try {
            if (!lifecycle.isRenewing()) {
                return false;
            }
            MachineIdBlock held = block;
            long now = timeSource.currentTimeMillis();
            // Strictly above every expiry written so far, even after the clock stepped back, so that a takeover that
            // read the entry before this renewal can never match it afterwards.
            long expiry = Math.max(now + leaseMillis, lastWrittenExpiry + 1);
            lastWrittenExpiry = expiry;
            try {
                // Never below the high water this node took over (see takeBlock).
                Long inherited = notBefore;
                String result = write(held, expiry, inherited == null ? expiry : Math.max(inherited, expiry));
                if ("ok".equals(result)) {
                    if (!lifecycle.renewTo(expiry, () -> "Renewed the lease on " + held.describe() + " in Redis "
                            + store.describe() + " again; lease until " + Instant.ofEpochMilli(expiry))) {
                        return false;
                    }
                    confirmedExpiry = expiry;
                    return true;
                }
                lifecycle.lose(lostReason(result, held));
                return false;
            } catch (RuntimeException e) {
                return lifecycle.renewalFailed(now, "Cannot renew the lease on " + held.describe() + " in Redis "
                        + store.describe() + ": " + e.getMessage());
            }
        } finally {
            redis.unlock();
        }
    }

    private String write(MachineIdBlock held, long expiry, long highWater) {
        List<Entry> entries = new ArrayList<>(held.size());
        for (long id = held.first(); id <= held.last(); id++) {
            entries.add(new Entry(id, generation, expiry, highWater, token, owner));
        }
        return store.renew(token, entries);
    }

    /** Why a renewal found the block gone: the script's answer, explained with what the hash shows now. */
    private String lostReason(String result, MachineIdBlock held) {
        long machineId = Long.parseLong(result.substring(result.indexOf(':') + 1));
        String which = held.size() == 1 ? "its entry" : "the entry of machine ID " + machineId + " of its block " + held;
        if (result.startsWith("gone:")) {
            return which + " in Redis " + store.describe() + " is gone: the server lost its data (a restart without"
                    + " persistence, a failover, FLUSHALL or eviction) or the key was deleted";
        }
        Entry now = null;
        try {
            now = store.read().entries().get(machineId);
        } catch (RuntimeException e) {
            // explained without it
        }
        if (now == null) {
            return which + " in Redis " + store.describe() + " carries another fencing token";
        }
        if (now.owner().equals(owner) && now.leaseExpiry() <= timeSource.currentTimeMillis()) {
            return "its lease on " + (held.size() == 1 ? "it" : which) + " in Redis " + store.describe() + " was ended by"
                    + " another process (generation " + now.generation() + ", this node held generation " + generation
                    + "): an operator's release (DELETE /vesta/admin/leases) or another process of owner '" + owner + "'";
        }
        if (now.generation() > generation) {
            return "Redis " + store.describe() + " shows " + (held.size() == 1 ? "it" : which) + " taken over by owner '"
                    + now.owner() + "' (generation " + now.generation() + ", this node held generation " + generation
                    + ") after this node could not renew its lease in time";
        }
        return "Redis " + store.describe() + " shows " + (held.size() == 1 ? "it" : which) + " held by owner '"
                + now.owner() + "' under another fencing token (generation " + now.generation() + "): claimed anew after"
                + " Redis lost this node's entry";
    }

    /**
     * Revokes the lease at once (no ID is issued after close() began), stops the heartbeat and releases the entries:
     * their lease ends now, with a high water at the last time this node could have issued, so that another node may
     * take them at once and a restart of this node gets the same IDs back. Returns within {@link #closeTimeout()}.
     */
    @Override
    public void close() {
        try {
            lifecycle.close(closeTimeout(), this::release, () -> "the entries become free by themselves when their lease"
                    + " ends (the last expiry this node wrote is " + Instant.ofEpochMilli(lastWrittenExpiry) + ")");
        } finally {
            store.close();
        }
    }

    private String release(long now) throws InterruptedException {
        if (!redis.tryLock(CLOSE_WAIT_FOR_REDIS_MILLIS, TimeUnit.MILLISECONDS)) {
            return "a heartbeat has been in Redis for over " + CLOSE_WAIT_FOR_REDIS_MILLIS + " ms";
        }
        try {
            if (lifecycle.isLost()) {
                return null;
            }
            // If the entries were taken over meanwhile, the token makes this a no-op.
            write(block, now, LeaseLifecycle.releaseMark(notBefore, confirmedExpiry, now));
            return null;
        } catch (RuntimeException e) {
            return e.getMessage();
        } finally {
            redis.unlock();
        }
    }

    @Override
    public MachineIdLease lease() {
        return lifecycle.lease();
    }

    /** The entries held now; a new grant after this node lost its entries and claimed others by itself. */
    @Override
    public Optional<MachineIdGrant> grant() {
        return lifecycle.grant();
    }

    @Override
    public void onRegain(Runnable listener) {
        lifecycle.onRegain(listener);
    }

    /** The hash's leases, for an operator: every machine ID of a range, and ending a dead holder's lease. */
    @Override
    public Optional<MachineIdLeases> leases() {
        return Optional.of(leases);
    }

    @Override
    public OptionalLong notBefore() {
        Long mark = notBefore;
        return mark == null ? OptionalLong.empty() : OptionalLong.of(mark);
    }

    @Override
    public String describe() {
        String from = takenFrom;
        return "redis (" + store.describe() + ", owner '" + owner + "'" + (from != null ? ", taken over from '" + from + "'" : "") + ")";
    }

    public String key() {
        return key;
    }

    public String owner() {
        return owner;
    }

    public Duration leaseDuration() {
        return Duration.ofMillis(leaseMillis);
    }

    public Duration heartbeatInterval() {
        return Duration.ofMillis(heartbeatMillis);
    }

    public Duration maxClockSkew() {
        return Duration.ofMillis(maxClockSkewMillis);
    }

    /** The timeout of every Redis command: the heartbeat interval, at least one second and at most the lease. */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** The longest {@link #close()} takes: the command timeout plus the one second it may wait for a heartbeat. */
    public Duration closeTimeout() {
        return commandTimeout.plusMillis(CLOSE_WAIT_FOR_REDIS_MILLIS);
    }

    @Override
    public String toString() {
        return "RedisMachineIdProvider[" + describe() + ", lease " + leaseMillis + "ms, heartbeat " + heartbeatMillis + "ms]";
    }

    /** The default owner, {@code host:pid} ({@link DefaultOwner#hostAndPid()}): unique among live processes. */
    public static String defaultOwner() {
        return DefaultOwner.hostAndPid();
    }

    /** The store mark a claim writes, and why its IDs must wait (null when they need not). */
    private record Settle(StoreMark mark, String reason) {

        /** Whether a claim at {@code now} must start after the mark's settle time. */
        boolean waitsPast(long now) {
            return reason != null && mark.settleUntil() > now;
        }
    }

    private record Claim(long machineId, long generation, String token, long expiry, Long notBefore, String takenFrom) {
    }

    /** Settings of a {@link RedisMachineIdProvider}; every setting is checked in {@link #build()}. */
    public static final class Builder {

        private final RedisClient client;
        private final RedisURI uri;
        private final String server;
        private ClientResources clientResources;
        private String key = DEFAULT_KEY;
        private String owner;
        private Duration lease = DEFAULT_LEASE;
        private Duration heartbeat = DEFAULT_HEARTBEAT;
        private Duration maxClockSkew = DEFAULT_MAX_CLOCK_SKEW;
        private TimeSource timeSource = TimeSource.system();
        private String settingPrefix = "";

        private Builder(RedisClient client, RedisURI uri) {
            this.client = client;
            this.uri = uri;
            this.server = uri == null ? null : describe(uri);
        }

        /** Where {@code uri} points, without its credentials. */
        private static String describe(RedisURI uri) {
            String database = uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "";
            if (uri.getSocket() != null) {
                return uri.getSocket() + database;
            }
            if (!uri.getSentinels().isEmpty()) {
                return "sentinel master " + uri.getSentinelMasterId() + database;
            }
            return uri.getHost() + ":" + uri.getPort() + database;
        }

        /** The Lettuce resources a client of the provider's own runs on; its own by default. Ignored with a given client. */
        public Builder clientResources(ClientResources clientResources) {
            this.clientResources = clientResources;
            return this;
        }

        /** The hash key, {@value #DEFAULT_KEY} by default: every node drawing from one range uses the same key. */
        public Builder key(String key) {
            this.key = key;
            return this;
        }

        /** Who this node is, stable across its restarts; {@link #defaultOwner()} by default. */
        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        /** How long an entry stays this node's after a renewal; 30 s by default. The same on every node of a key. */
        public Builder lease(Duration lease) {
            this.lease = lease;
            return this;
        }

        /** How often the lease is renewed; 5 s by default, at most a third of the lease. */
        public Builder heartbeat(Duration heartbeat) {
            this.heartbeat = heartbeat;
            return this;
        }

        /**
         * How far apart the clocks of the nodes sharing the key may be, 1 s by default: after Redis lost data, a claim
         * waits this much longer than the lease.
         */
        public Builder maxClockSkew(Duration maxClockSkew) {
            this.maxClockSkew = maxClockSkew;
            return this;
        }

        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = timeSource;
            return this;
        }

        /** Put before each setting's kebab-case name in the {@link InvalidSettingException} of {@link #build()}. */
        public Builder settingPrefix(String settingPrefix) {
            this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
            return this;
        }

        /**
         * The provider, once every setting is checked.
         * @throws InvalidSettingException naming the first setting that cannot be used
         */
        public RedisMachineIdProvider build() {
            InvalidSettingException.requireSet(settingPrefix + "url", uri, "a Redis URI such as redis://host:6379/0");
            InvalidSettingException.requireSet(settingPrefix + "time-source", timeSource, "an io.vesta.time.TimeSource");
            String allowedKey = "1 to " + MAX_KEY_LENGTH + " characters, not blank";
            if (key == null) {
                throw new InvalidSettingException(settingPrefix + "key", null, allowedKey);
            }
            if (key.isBlank() || key.length() > MAX_KEY_LENGTH) {
                throw new InvalidSettingException(settingPrefix + "key", key, allowedKey,
                        key.isBlank() ? "is blank" : "is " + key.length() + " characters long");
            }
            if (owner == null) {
                owner = defaultOwner();
            }
            LeaseLifecycle.requireOwner(settingPrefix + "owner", owner, MAX_OWNER_LENGTH);
            InvalidSettingException.requireInRange(settingPrefix + "lease", lease, MIN_LEASE, MAX_LEASE);
            LeaseLifecycle.requireRenewalInterval(settingPrefix + "heartbeat", heartbeat, MIN_HEARTBEAT,
                    settingPrefix + "lease", lease);
            InvalidSettingException.requireInRange(settingPrefix + "max-clock-skew", maxClockSkew, Duration.ZERO, MAX_CLOCK_SKEW);
            return new RedisMachineIdProvider(this);
        }
    }
}
