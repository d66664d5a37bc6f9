package io.vesta.machine;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A machine ID leased from a shared store, whatever the store: the one provider that runs the lease protocol, over a
 * {@link LeaseBackend} that does the store's fenced reads and writes. It acquires a block, renews its lease on a timer,
 * stops issuing the moment the lease can no longer be trusted, claims another block by itself after a loss, and gives
 * the block back on close within a bound.
 *
 * <p>Why two nodes never issue under one machine ID, given a backend whose writes are fenced:
 * <ul>
 * <li>The local {@link MachineIdLease}, read by the generator before every ID, is only ever extended to an end the
 *     store confirmed, and never again once it was {@link MachineIdLease#end ended}: when the block was lost, or when
 *     {@link #close} began. A renewal that comes back from the store after that cannot let another ID out.</li>
 * <li>Every write of the holder carries a high water at or above its lease end and never below the high water it took
 *     the block over with; whoever takes the block next starts after the high water its fenced write found, which
 *     bounds every ID the holder issued or may still issue.</li>
 * <li>{@link #close} ends the lease before it reads the clock for the release, so every ID issued carries an earlier
 *     reading than the mark the release writes.</li>
 * <li>After a loss the lost lease stays ended; a block claimed again is published as a new {@link MachineIdGrant} with
 *     a lease of its own, so a generator of the lost block never issues again.</li>
 * </ul>
 *
 * <p>Every call into the backend is made under one lock, one at a time: acquire, each renewal, each claim after a loss,
 * the release, and last the backend's own close, once no other call is in the store. {@link #close} never waits for
 * it beyond a bound, since a call may hang in the store; what it must do at once (end the lease) needs no lock,
 * because the lease refuses to be extended once ended, and a block published while close() begins is ended by
 * whichever of the two comes second.
 *
 * @param <F> what fences the backend's writes
 */
public final class LeasedMachineIdProvider<F> implements MachineIdProvider {

    /** The longest wait between two attempts to claim a block again after a loss. */
    public static final Duration MAX_REGAIN_BACKOFF = Duration.ofSeconds(30);
    /** How long close() waits for a call that is in the store before it leaves the release to the lease's end. */
    public static final Duration CLOSE_WAIT_FOR_STORE = Duration.ofSeconds(1);

    private final LeaseBackend<F> backend;
    private final LeaseSettings settings;
    private final String name;
    private final System.Logger log;
    private final ReentrantLock store = new ReentrantLock();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final List<Runnable> regainListeners = new CopyOnWriteArrayList<>();
    /** The lease before the first acquire: never held. */
    private final MachineIdLease unstarted = new MachineIdLease(Long.MIN_VALUE);

    /** The block held now, its lease and mark; null before acquire. Replaced whole by a claim after a loss. */
    private volatile MachineIdGrant grant;
    /** What the backend claimed last, with the fence of the next write; null before acquire or when given back. */
    private volatile LeaseClaim<F> held;
    private volatile boolean closed;
    private volatile boolean lost;
    /** The highest lease end written, confirmed or not: every write goes above it, so it always changes the store. */
    private volatile long lastWrittenExpiry;

    // Under the store lock (the regain countdown on the timer's thread too):
    private MachineIdRange range;
    private int blockSize;
    private long confirmedExpiry;
    private boolean failing;
    private AutoCloseable timer;
    private long ticksToRegain;
    private long regainBackoffTicks;

    /**
     * @param backend  the store
     * @param settings checked settings ({@link LeaseSettings#validate()})
     * @param name     the facade's simple class name, for messages: {@code "DbMachineIdProvider"}
     * @param log      the facade's logger, so that messages keep its name
     */
    public LeasedMachineIdProvider(LeaseBackend<F> backend, LeaseSettings settings, String name, System.Logger log) {
        this.backend = backend;
        this.settings = settings;
        this.name = name;
        this.log = log;
    }

    @Override
    public long acquire(MachineIdRange range) {
        return acquire(range, 1);
    }

    /** Claims a whole aligned block of {@code blockSize} machine IDs, all of it or none, and renews it from now on. */
    @Override
    public long acquire(MachineIdRange range, int blockSize) {
        MachineIdRange.requireBlockSize("blockSize", blockSize);
        store.lock();
        try {
            if (closed) {
                throw new IllegalStateException("This " + name + " was closed; build a new one");
            }
            if (grant != null) {
                throw new IllegalStateException("This " + name + " already holds " + grant.block().describe()
                        + "; build a new one for another generator");
            }
            LeaseClaim<F> claim = claim(range, blockSize, true);
            this.range = range;
            this.blockSize = blockSize;
            if (!publish(claim)) {
                throw new IllegalStateException("This " + name + " was closed while it leased " + claim.block().describe()
                        + " from " + backend.store() + "; " + giveBack(claim));
            }
            log.log(Level.INFO, () -> "Leased " + claim.block().describe() + " from " + backend.store() + " as owner '"
                    + settings.owner() + "'" + (claim.takenFrom() != null ? ", taken over from '" + claim.takenFrom()
                    + "'" : "") + (claim.notBefore() != null ? " (IDs start after "
                    + Instant.ofEpochMilli(claim.notBefore()) + ")" : "") + "; lease until "
                    + Instant.ofEpochMilli(claim.expiry()));
            timer = settings.timer().every("vesta-machine-id-" + backend.renewalName() + "-" + backend.scope() + "-"
                    + claim.block().first(), settings.renewal().toMillis(), this::tick);
            return claim.block().first();
        } finally {
            store.unlock();
        }
    }

    /** Under the store lock: the backend's claim, its failures told as what was asked of which store. */
    private LeaseClaim<F> claim(MachineIdRange range, int blockSize, boolean startUp) {
        try {
            return backend.claim(range, blockSize, startUp);
        } catch (MachineIdUnavailableException | IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new MachineIdUnavailableException("Cannot lease " + (blockSize == 1 ? "a machine ID" : "a block of "
                    + blockSize + " machine IDs") + " from " + backend.store() + " (range " + range + ", owner '"
                    + settings.owner() + "'): " + e.getMessage(), e);
        }
    }

    /**
     * Under the store lock: publishes {@code claim} as the next grant, its lease not yet held, and then holds it unless
     * close() began. Close reads the grant after it sets {@code closed}, and this reads {@code closed} after it sets
     * the grant, so one of the two always sees the other: either close() ends this lease, or this finds close() begun.
     * @return false, with the lease ended and nothing issued under it, when close() began
     */
    private boolean publish(LeaseClaim<F> claim) {
        MachineIdGrant previous = grant;
        MachineIdLease lease = new MachineIdLease(Long.MIN_VALUE);
        held = claim;
        lastWrittenExpiry = claim.expiry();
        confirmedExpiry = claim.expiry();
        failing = false;
        grant = new MachineIdGrant(previous == null ? 1 : previous.number() + 1, claim.block(), lease,
                claim.notBefore() == null ? OptionalLong.empty() : OptionalLong.of(claim.notBefore()));
        if (closed || !lease.extend(claim.expiry())) {
            lease.end("the machine-ID provider was closed", settings.timeSource().currentTimeMillis());
            held = null;
            return false;
        }
        lost = false;
        return true;
    }

    /** Under the store lock: releases a block claimed while close() began; nothing was issued under it. */
    private String giveBack(LeaseClaim<F> claim) {
        long now = settings.timeSource().currentTimeMillis();
        try {
            return backend.release(claim, now, claim.releaseMark(claim.expiry(), now))
                    ? "it was given back" : "it had already changed hands";
        } catch (Exception e) {
            return "it could not be given back (" + e.getMessage() + ") and becomes free when its lease ends at "
                    + Instant.ofEpochMilli(claim.expiry());
        }
    }

    /** The timer: a renewal while the block is held, a claim with a backoff after it was lost. */
    private void tick() {
        try {
            if (lost) {
                if (--ticksToRegain <= 0) {
                    regainNow();
                }
            } else {
                renewNow();
            }
        } catch (RuntimeException e) {
            // A timer task that throws is never run again; the lease must keep trying.
            log.log(Level.WARNING, "The " + backend.renewalName() + " of " + describe() + " failed unexpectedly", e);
        }
    }

    /**
     * Renews the lease once now, as the timer does every renewal interval; waits for a call in the store first.
     * @return whether the lease is held afterwards
     */
    public boolean renewNow() {
        store.lock();
        try {
            return renew();
        } finally {
            store.unlock();
        }
    }

    private boolean renew() {
        LeaseClaim<F> claim = held;
        MachineIdGrant current = grant;
        if (closed || lost || claim == null) {
            return false;
        }
        long now = settings.timeSource().currentTimeMillis();
        // Strictly above every expiry written so far, even after the clock stepped back: the write always changes the
        // store, so that a takeover that read the block before it can never match it afterwards.
        long expiry = Math.max(now + settings.lease().toMillis(), lastWrittenExpiry + 1);
        lastWrittenExpiry = expiry;
        LeaseBackend.Renewal<F> renewal;
        try {
            renewal = backend.renew(claim, expiry, claim.highWater(expiry));
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return renewalFailed(current.lease(), now, "Cannot renew the lease on " + claim.block().describe() + " in "
                    + backend.store() + ": " + e.getMessage());
        }
        if (!renewal.isRenewed()) {
            lose(current, renewal.lostReason());
            return false;
        }
        held = claim.withFence(renewal.fence());
        // Only now is the new high water in the store, so only now may the node issue up to it; never after the lease
        // was ended by close() while this renewal was in the store.
        if (!current.lease().extend(expiry)) {
            return false;
        }
        confirmedExpiry = expiry;
        if (failing) {
            failing = false;
            log.log(Level.INFO, () -> "Renewed the lease on " + claim.block().describe() + " in " + backend.store()
                    + " again; lease until " + Instant.ofEpochMilli(expiry));
        }
        return true;
    }

    /** A renewal that may not have landed: the lease runs out by itself unless a later one does. Logged once a run. */
    private boolean renewalFailed(MachineIdLease lease, long now, String failure) {
        boolean stillHeld = lease.isHeldAt(now);
        if (!failing) {
            failing = true;
            String renewal = backend.renewalName();
            log.log(Level.WARNING, failure + (stillHeld ? "; IDs are issued until "
                    + Instant.ofEpochMilli(lease.heldUntil()) + " unless a " + renewal + " succeeds first"
                    : "; no ID is issued until a " + renewal + " succeeds"));
        }
        return stillHeld;
    }

    /** Under the store lock: the block is someone else's; its lease ends for good and a claim again begins. */
    private void lose(MachineIdGrant current, String reason) {
        MachineIdBlock block = current.block();
        String message = block.describe() + (block.size() > 1 ? " are" : " is") + " no longer this node's (owner '"
                + settings.owner() + "'): " + reason + "; this node claims another machine ID by itself";
        current.lease().end(message, settings.timeSource().currentTimeMillis());
        lost = true;
        // Not at once: one renewal interval lets a loss that is an operator's release, or a store that is settling,
        // show itself before the claim reads it.
        ticksToRegain = 1;
        regainBackoffTicks = 1;
        log.log(Level.ERROR, message);
    }

    /**
     * After a loss, claims a block again now, as the timer does with a backoff (one renewal interval after the loss,
     * then doubling up to {@link #MAX_REGAIN_BACKOFF}): the owner's block once its lease has ended, else the lowest free
     * one. Publishes it as a new {@link #grant()} and runs the {@link #onRegain} listeners.
     * @return whether a block is held afterwards
     */
    public boolean regainNow() {
        LeaseClaim<F> claim;
        store.lock();
        try {
            if (closed || !lost) {
                return !closed && !lost;
            }
            try {
                claim = claim(range, blockSize, false);
            } catch (RuntimeException e) {
                long maxTicks = Math.max(1, MAX_REGAIN_BACKOFF.toMillis() / settings.renewal().toMillis());
                regainBackoffTicks = Math.min(regainBackoffTicks * 2, maxTicks);
                ticksToRegain = regainBackoffTicks;
                if (closed) {
                    return false; // close() interrupted the claim
                }
                log.log(Level.WARNING, "Cannot claim a machine ID again (" + backend.store() + ", owner '"
                        + settings.owner() + "'): " + e.getMessage() + "; trying again in "
                        + regainBackoffTicks * settings.renewal().toMillis() + " ms. No ID is issued meanwhile.");
                return false;
            }
            if (!publish(claim)) {
                log.log(Level.INFO, "This " + name + " was closed while it claimed " + claim.block().describe()
                        + " again from " + backend.store() + "; " + giveBack(claim));
                return false;
            }
        } finally {
            store.unlock();
        }
        log.log(Level.WARNING, () -> "Claimed " + claim.block().describe() + " (" + backend.store() + ") after the"
                + " previous machine ID was lost; owner '" + settings.owner() + "', lease until "
                + Instant.ofEpochMilli(claim.expiry()) + (claim.notBefore() != null ? ", IDs start after "
                + Instant.ofEpochMilli(claim.notBefore()) : ""));
        for (Runnable listener : regainListeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                log.log(Level.WARNING, "A listener of the claim of " + claim.block().describe() + " failed", e);
            }
        }
        return true;
    }

    /**
     * Ends the lease at once (no ID is issued after close() began), stops the renewals and gives the block back: its
     * lease ends now and the high water bounds every ID issued, so another node may take it at once, and the owner
     * stays, so a restart of this node gets the same IDs back. Returns within {@link #closeTimeout()} whatever the store
     * does: it waits at most {@link #CLOSE_WAIT_FOR_STORE} for a call that is in the store, and leaves a release that
     * does not finish in time to the lease's own end. Safe to call more than once.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        MachineIdGrant current = grant;
        if (current != null) {
            current.lease().end("the machine-ID provider was closed", settings.timeSource().currentTimeMillis());
        }
        // Read after the lease ended: every ID issued carries an earlier clock reading.
        long now = settings.timeSource().currentTimeMillis();
        CompletableFuture<String> release = new CompletableFuture<>();
        Thread thread = new Thread(() -> release(now, release), "vesta-machine-id-release-" + backend.scope());
        thread.setDaemon(true);
        thread.start();
        String problem;
        try {
            problem = release.get(closeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            problem = "the release did not finish within " + closeTimeout().toMillis() + " ms (it may still land)";
        } catch (ExecutionException e) {
            problem = "the release failed: " + e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem = "close() was interrupted (the release may still land)";
        }
        LeaseClaim<F> claim = held;
        if (problem != null && claim != null) {
            log.log(Level.WARNING, "Did not release " + claim.block().describe() + " (" + backend.store() + "): "
                    + problem + "; " + backend.unreleased(claim, lastWrittenExpiry)
                    + ". No ID was issued after close() began.");
        }
    }

    /**
     * close()'s release, on a thread of its own: completes {@code outcome} with null when done or nothing was held,
     * else with what kept it from landing. Then closes the backend under the store lock, so that no call is in the
     * store or comes after it: at once, or once a call close() did not wait for came back.
     */
    private void release(long now, CompletableFuture<String> outcome) {
        AutoCloseable renewals = timer;
        boolean locked = false;
        try {
            if (renewals != null) {
                renewals.close();
            }
            locked = store.tryLock(CLOSE_WAIT_FOR_STORE.toMillis(), TimeUnit.MILLISECONDS);
            if (!locked) {
                outcome.complete("a " + backend.renewalName() + " has been in " + backend.store() + " for over "
                        + CLOSE_WAIT_FOR_STORE.toMillis() + " ms");
                return;
            }
            if (timer != null && timer != renewals) {
                timer.close();
            }
            LeaseClaim<F> claim = held;
            if (claim != null && !lost) {
                // A block taken over meanwhile makes this write match nothing: the fence.
                backend.release(claim, now, claim.releaseMark(confirmedExpiry, now));
            }
            outcome.complete(null);
        } catch (Exception e) {
            outcome.completeExceptionally(e);
        } finally {
            if (!locked) {
                store.lock();
            }
            try {
                backend.close();
            } catch (RuntimeException e) {
                log.log(Level.WARNING, "Cannot close " + backend.store(), e);
            } finally {
                store.unlock();
            }
        }
    }

    /** The longest {@link #close()} takes: the backend's bound on one call into the store and a second. */
    public Duration closeTimeout() {
        return backend.closeTimeout();
    }

    @Override
    public MachineIdLease lease() {
        MachineIdGrant current = grant;
        return current == null ? unstarted : current.lease();
    }

    /** The block held now; a new grant after this node lost its block and claimed another by itself. */
    @Override
    public Optional<MachineIdGrant> grant() {
        return Optional.ofNullable(grant);
    }

    @Override
    public void onRegain(Runnable listener) {
        regainListeners.add(listener);
    }

    @Override
    public OptionalLong notBefore() {
        MachineIdGrant current = grant;
        return current == null ? OptionalLong.empty() : current.notBefore();
    }

    /** The store's leases, for an operator: every machine ID of a range, and ending a dead holder's lease. */
    @Override
    public Optional<MachineIdLeases> leases() {
        return Optional.of(backend.leases(id -> {
            MachineIdGrant current = grant;
            return current != null && !closed && !lost && id >= current.block().first() && id <= current.block().last();
        }));
    }

    /** Whether the block was lost and no other has been claimed since. */
    public boolean isLost() {
        return lost;
    }

    /** Whether {@link #close} began. */
    public boolean isClosed() {
        return closed;
    }

    /** The settings this provider runs on. */
    public LeaseSettings settings() {
        return settings;
    }

    @Override
    public String describe() {
        return backend.describe(held);
    }

    @Override
    public String toString() {
        return name + "[" + describe() + ", lease " + settings.lease().toMillis() + "ms, " + backend.renewalName() + " "
                + settings.renewal().toMillis() + "ms]";
    }
}
