package io.vesta.machine;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A machine ID leased from a shared store, whatever the store: the one provider that runs the lease protocol, over a
 * {@link LeaseBackend} that does the store's fenced reads and writes. It acquires a block, renews its lease on a timer,
 * stops issuing the moment the lease can no longer be trusted, claims another block by itself after a loss, and gives
 * the block back on close within a bound. The key invariant: the local {@link MachineIdLease} is only ever extended to
 * an end the store confirmed, never again once ended (a loss, {@link #close}), and every write carries a high water
 * over every ID issued. Every backend call is made under one lock, one at a time. The whole argument:
 * docs/reliability.md, "Why the lease writes are safe".
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
    private final LeaseHolding<F> holding = new LeaseHolding<>();
    private volatile boolean closed;

    // Under the store lock (the regain countdown on the timer's thread too):
    private MachineIdRange range;
    private int blockSize;
    private boolean failing;
    /** The renewals' handle (read by close()'s release before it takes the lock); nothing before acquire. */
    private volatile AutoCloseable timer = () -> { };
    private final RegainBackoff regain;

    /**
     * A provider over {@code backend} with checked {@code settings}, named in messages as {@code name} (the facade's
     * simple class name) and logging through {@code log} (the facade's logger).
     */
    public LeasedMachineIdProvider(LeaseBackend<F> backend, LeaseSettings settings, String name, System.Logger log) {
        this.backend = backend;
        this.settings = settings;
        this.name = name;
        this.log = log;
        this.regain = new RegainBackoff(settings.renewal(), MAX_REGAIN_BACKOFF);
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
            if (holding.grant().isPresent()) {
                throw new IllegalStateException("This " + name + " already holds " + holding.grant().get().block()
                        .describe() + "; build a new one for another generator");
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
                    + settings.owner() + "'): " + reason(e), e);
        }
    }

    private boolean publish(LeaseClaim<F> claim) {
        failing = false;
        return holding.publish(claim, () -> closed, settings.timeSource().currentTimeMillis());
    }

    /** Under the store lock: releases a block claimed while close() began; nothing was issued under it. */
    private String giveBack(LeaseClaim<F> claim) {
        long now = settings.timeSource().currentTimeMillis();
        try {
            return backend.release(claim, now, claim.releaseMark(claim.expiry(), now))
                    ? "it was given back" : "it had already changed hands";
        } catch (Exception e) {
            return "it could not be given back (" + reason(e) + ") and becomes free when its lease ends at "
                    + Instant.ofEpochMilli(claim.expiry());
        }
    }

    /** The timer: a renewal while the block is held, a claim with a backoff after it was lost. */
    private void tick() {
        try {
            if (holding.isLost()) {
                if (regain.due()) {
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

    /** Renews the lease once now, as the timer does every interval; returns whether it is held afterwards. */
    public boolean renewNow() {
        store.lock();
        try {
            LeaseClaim<F> claim = holding.claim();
            return !closed && !holding.isLost() && claim != null && renew(claim, holding.lease());
        } finally {
            store.unlock();
        }
    }

    private boolean renew(LeaseClaim<F> claim, MachineIdLease lease) {
        long now = settings.timeSource().currentTimeMillis();
        long expiry = holding.nextExpiry(now, settings.lease().toMillis());
        LeaseBackend.Renewal<F> renewal;
        try {
            renewal = backend.renew(claim, expiry, claim.highWater(expiry));
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return renewalFailed(lease, now, "Cannot renew the lease on " + claim.block().describe() + " in "
                    + backend.store() + ": " + reason(e));
        }
        if (!renewal.isRenewed()) {
            lose(claim.block(), renewal.lostReason());
            return false;
        }
        // Only now is the new high water in the store, so only now may the node issue up to it; never after the lease
        // was ended by close() while this renewal was in the store.
        if (!holding.confirm(claim, renewal.fence(), expiry)) {
            return false;
        }
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
    private void lose(MachineIdBlock block, String reason) {
        String message = block.describe() + (block.size() > 1 ? " are" : " is") + " no longer this node's (owner '"
                + settings.owner() + "'): " + reason + "; this node claims another machine ID by itself";
        holding.lose(message, settings.timeSource().currentTimeMillis());
        regain.lost();
        log.log(Level.ERROR, message);
    }

    /**
     * After a loss, claims a block again now, as the timer does with a backoff (one renewal interval after the loss,
     * then doubling up to {@link #MAX_REGAIN_BACKOFF}): the owner's block once its lease has ended, else the first free
     * one in the range's order. Publishes it as a new {@link #grant()} and runs the {@link #onRegain} listeners.
     * @return whether a block is held afterwards
     */
    public boolean regainNow() {
        LeaseClaim<F> claim;
        store.lock();
        try {
            if (closed || !holding.isLost()) {
                return !closed && !holding.isLost();
            }
            try {
                claim = claim(range, blockSize, false);
            } catch (RuntimeException e) {
                long ticks = regain.failed();
                if (closed) {
                    return false; // close() interrupted the claim
                }
                log.log(Level.WARNING, "Cannot claim a machine ID again (" + backend.store() + ", owner '"
                        + settings.owner() + "'): " + reason(e) + "; trying again in "
                        + ticks * settings.renewal().toMillis() + " ms. No ID is issued meanwhile.");
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
     * Ends the lease at once, stops the renewals and gives the block back (lease end now, high water over every ID
     * issued, owner kept so that a restart gets it back). Returns within {@link #closeTimeout()}: a release that waits
     * over {@link #CLOSE_WAIT_FOR_STORE} for a call in the store is left to the lease's end. Safe to call again.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        closed = true;
        holding.close(settings.timeSource().currentTimeMillis());
        // Read after the lease ended: every ID issued carries an earlier clock reading.
        long now = settings.timeSource().currentTimeMillis();
        String problem = BoundedRelease.run("vesta-machine-id-release-" + backend.scope(), closeTimeout(),
                outcome -> release(now, outcome));
        LeaseClaim<F> claim = holding.claim();
        if (problem != null && claim != null) {
            log.log(Level.WARNING, "Did not release " + claim.block().describe() + " (" + backend.store() + "): "
                    + problem + "; " + backend.unreleased(claim, holding.lastWrittenExpiry())
                    + ". No ID was issued after close() began.");
        }
    }

    /**
     * close()'s release, on a thread of its own ({@code outcome}: null when done, else what kept it from landing);
     * then the backend's close under the store lock, at once or once a call close() did not wait for came back.
     */
    private void release(long now, CompletableFuture<String> outcome) {
        AutoCloseable renewals = timer;
        boolean locked = false;
        try {
            renewals.close();
            locked = store.tryLock(CLOSE_WAIT_FOR_STORE.toMillis(), TimeUnit.MILLISECONDS);
            if (!locked) {
                outcome.complete("a " + backend.renewalName() + " has been in " + backend.store() + " for over "
                        + CLOSE_WAIT_FOR_STORE.toMillis() + " ms");
                return;
            }
            if (timer != renewals) {
                timer.close(); // started by an acquire that close() began during
            }
            LeaseClaim<F> claim = holding.claim();
            if (claim != null && !holding.isLost()) {
                // A block taken over meanwhile makes this write match nothing: the fence.
                backend.release(claim, now, holding.releaseMark(claim, now));
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
        return holding.lease();
    }

    /** The block held now; a new grant after this node lost its block and claimed another by itself. */
    @Override
    public Optional<MachineIdGrant> grant() {
        return holding.grant();
    }

    @Override
    public void onRegain(Runnable listener) {
        regainListeners.add(listener);
    }

    @Override
    public OptionalLong notBefore() {
        return holding.notBefore();
    }

    /** The store's leases, for an operator: every machine ID of a range, and ending a dead holder's lease. */
    @Override
    public Optional<MachineIdLeases> leases() {
        return Optional.of(backend.leases(id -> !closed && holding.holds(id)));
    }

    /** Whether the block was lost and no other has been claimed since. */
    public boolean isLost() {
        return holding.isLost();
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
        return backend.describe(holding.claim());
    }

    @Override
    public String toString() {
        return name + "[" + describe() + ", lease " + settings.lease().toMillis() + "ms, " + backend.renewalName() + " "
                + settings.renewal().toMillis() + "ms]";
    }

    /**
     * What a store's failure says, for messages: its message, or, for an exception without one (a timeout, a
     * cancelled call), its class and what caused it.
     */
    static String reason(Throwable e) {
        String message = e.getMessage();
        if (message != null && !message.isBlank()) {
            return message;
        }
        Throwable cause = e.getCause();
        return e.getClass().getName() + (cause != null && cause != e ? " (" + reason(cause) + ")" : "");
    }
}
