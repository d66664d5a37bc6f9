package io.vesta.machine;

import io.vesta.InvalidSettingException;
import io.vesta.time.TimeSource;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The life of a leased machine ID, whatever keeps the lease (a database row, a Redis hash field, a ZooKeeper
 * node): the local {@link MachineIdLease} the generator reads before every ID, the renewals on a named daemon
 * thread, losing the ID for good, and close-then-release within a bound. Also the settings every leased provider
 * shares and their checks. The backend (what a renewal writes, what makes a takeover safe) stays in the provider.
 *
 * <p>The providers hold one of these rather than extend a base class: they guard their backend calls
 * differently (the database and Redis providers with a lock that {@code close()} gives up on after a bound, the
 * ZooKeeper provider with its monitor) and acquire in ways of their own, while what they share is exactly the state of the
 * local lease, which this class owns whole, so that no provider can change the lease outside of its rules.
 *
 * <p>The rules, on which both providers' proof that two nodes never issue under one ID rests:
 * <ul>
 * <li>The lease is only ever extended to an end the backend has confirmed ({@link #renewTo}), and never once
 *     {@link #close close} began or the ID was lost: a renewal that returns from the backend after that cannot let
 *     another ID out.</li>
 * <li>{@link #close} revokes the lease before it reads the clock for the release, so every ID issued carries an
 *     earlier reading than the one the release writes; and it returns within its bound whatever the backend
 *     does, leaving a release that did not finish to the lease's own end.</li>
 * <li>{@link #lose} revokes the lease for good. With a {@link #regainWith regain} the node then claims a block again by
 *     itself, retrying with a backoff, and {@link #regained} publishes it as a new {@link MachineIdGrant} with a
 *     lease of its own: the lost lease is never renewed again, so a generator of the lost block never issues again,
 *     and the new block's IDs start after its own {@code notBefore}.</li>
 * </ul>
 */
public final class LeaseLifecycle {

    /** The default lease: how long a node issues after its last successful renewal. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /**
     * A lease spans at least this many renewal intervals, so that two renewals in a row may fail before it runs
     * out.
     */
    public static final int RENEWALS_PER_LEASE = 3;
    /** The longest wait between two attempts to claim a block again after a loss. */
    public static final Duration MAX_REGAIN_BACKOFF = Duration.ofSeconds(30);

    /** The backend's part of a regain: claiming a block again after the lease was lost. */
    @FunctionalInterface
    public interface Regain {
        /**
         * One attempt to claim a block as acquire did, under the provider's own guard of its backend, recorded as the
         * block the provider renews before it returns. Throws when no block could be had (the store unreachable, the
         * range full): the lifecycle tries again later.
         */
        Regained claim() throws Exception;
    }

    /**
     * A block claimed again: the lease runs to {@code heldUntil} (an end the backend confirmed) and its IDs start after
     * {@code notBefore} (null for none). {@code giveBack} runs instead of publishing it when {@link #close} began
     * while it was claimed: nothing was issued under it.
     */
    public record Regained(MachineIdBlock block, long heldUntil, Long notBefore, Runnable giveBack) {
    }

    /** The backend's part of {@link #close}: giving the ID back. */
    @FunctionalInterface
    public interface Release {
        /**
         * Gives the ID back, every ID issued having a clock reading before {@code now}.
         * @return null when done (or nothing was left to release), else what kept it from being done
         */
        String release(long now) throws Exception;
    }

    private final String owner;
    private final String scope;
    private final String renewal;
    private final TimeSource timeSource;
    private final System.Logger log;
    /** The lease before the first start: never held. */
    private final MachineIdLease unstarted = new MachineIdLease(Long.MIN_VALUE);
    /** The block held now, its lease and mark; null before the start. A regain replaces it whole. */
    private volatile MachineIdGrant grant;
    private final java.util.List<Runnable> regainListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private Regain regain;
    private ScheduledExecutorService regains;
    private Duration interval;
    private Runnable renewalTask;
    /**
     * Guards {@code closed}, {@code lost}, the start and every change of the lease. Never held across a backend
     * call, so {@link #close} can revoke the lease at once.
     */
    private final Object state = new Object();

    private ScheduledExecutorService renewals;
    private volatile long machineId = -1;
    private volatile boolean closed;
    private volatile boolean lost;
    private volatile boolean failing;

    /**
     * @param owner      who this node is, for messages
     * @param scope      where the leases are kept (a table, a namespace), for messages and thread names
     *                   ({@code vesta-machine-id-<renewal>-<scope>-<id>})
     * @param renewal    what one renewal is called in logs and thread names: {@code "heartbeat"}, {@code "report"}
     * @param timeSource the clock the lease ends are read against
     * @param log        the provider's logger, so its messages keep the provider's name
     */
    public LeaseLifecycle(String owner, String scope, String renewal, TimeSource timeSource, System.Logger log) {
        this.owner = owner;
        this.scope = scope;
        this.renewal = renewal;
        this.timeSource = timeSource;
        this.log = log;
    }

    /** The lease the generator reads: the current grant's, never held before the start. */
    public MachineIdLease lease() {
        MachineIdGrant current = grant;
        return current == null ? unstarted : current.lease();
    }

    /** The block held now with its lease and mark; empty before the start. */
    public java.util.Optional<MachineIdGrant> grant() {
        return java.util.Optional.ofNullable(grant);
    }

    /**
     * After a loss, claim a block again with {@code regain} rather than stay without one: one renewal interval after
     * the loss, then with a backoff doubling from there up to {@link #MAX_REGAIN_BACKOFF}, until a claim succeeds or
     * {@link #close} begins. Set once, before the start.
     */
    public LeaseLifecycle regainWith(Regain regain) {
        synchronized (state) {
            this.regain = regain;
        }
        return this;
    }

    /** Runs {@code listener} on the regain thread after each published regain. */
    public void onRegain(Runnable listener) {
        regainListeners.add(listener);
    }

    /** The ID once {@link #start} succeeded, else -1. */
    public long machineId() {
        return machineId;
    }

    /** Whether {@link #close} began. */
    public boolean isClosed() {
        return closed;
    }

    /** Whether the lease was lost ({@link #lose}) and no block has been claimed again since. */
    public boolean isLost() {
        return lost;
    }

    /** Whether renewals are due: started, not closed and not lost. */
    public boolean isRenewing() {
        return machineId >= 0 && !closed && !lost;
    }

    /**
     * The check at the start of a provider's acquire: a provider leases once, and never after {@link #close}.
     * @param provider the provider's simple class name, for the message
     * @param held what the provider holds, for the message: {@code "machine ID 7"}, {@code "machine IDs 8-15"}
     * @throws IllegalStateException once close() began, or when an ID was started already
     */
    public void requireUnused(String provider, Supplier<String> held) {
        if (closed) {
            throw new IllegalStateException("This " + provider + " was closed; build a new one");
        }
        if (machineId >= 0) {
            throw new IllegalStateException("This " + provider + " already holds " + held.get()
                    + "; build a new one for another generator");
        }
    }

    /**
     * Publishes an acquired ID: the lease runs to {@code heldUntil} (an end the backend confirmed) and
     * {@code renewal} runs every {@code interval} on a daemon thread of its own. Returns false, and publishes
     * nothing, when {@link #close} began while the ID was being acquired: the caller gives the ID back.
     * @throws IllegalStateException when an ID was started already
     */
    public boolean start(long machineId, long heldUntil, Duration interval, Runnable renewal) {
        return start(MachineIdBlock.of(machineId), heldUntil, null, interval, renewal);
    }

    /**
     * Publishes an acquired block as the first {@link MachineIdGrant}: the lease runs to {@code heldUntil} (an end the
     * backend confirmed), its IDs start after {@code notBefore} (null for none), and {@code renewal} runs every
     * {@code interval} on a daemon thread of its own. Returns false, and publishes nothing, when {@link #close} began
     * while the block was being acquired: the caller gives it back.
     * @throws IllegalStateException when an ID was started already
     */
    public boolean start(MachineIdBlock block, long heldUntil, Long notBefore, Duration interval, Runnable renewal) {
        synchronized (state) {
            if (this.machineId >= 0) {
                throw new IllegalStateException("This lease already holds machine ID " + this.machineId);
            }
            if (closed) {
                return false;
            }
            this.interval = interval;
            this.renewalTask = renewal;
            publish(1, block, heldUntil, notBefore);
            return true;
        }
    }

    /** Under {@code state}: the new grant, and its renewals on a thread named after its block. */
    private void publish(long number, MachineIdBlock block, long heldUntil, Long notBefore) {
        this.machineId = block.first();
        this.grant = new MachineIdGrant(number, block, new MachineIdLease(heldUntil),
                notBefore == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(notBefore));
        String name = "vesta-machine-id-" + this.renewal + "-" + scope + "-" + block.first();
        renewals = daemonExecutor(name);
        long millis = interval.toMillis();
        Runnable task = renewalTask;
        renewals.scheduleWithFixedDelay(() -> runQuietly(task), millis, millis, TimeUnit.MILLISECONDS);
    }

    private static ScheduledExecutorService daemonExecutor(String name) {
        return Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Publishes a block the {@link Regain} claimed after a loss as a new {@link MachineIdGrant}, with a lease of its
     * own to {@code heldUntil} and its IDs after {@code notBefore} (null for none), and renews it from now on. The
     * lost lease stays revoked. Returns false, and publishes nothing, once {@link #close} began: the block is then
     * given back.
     * @throws IllegalStateException when the lease was not lost
     */
    boolean regained(MachineIdBlock block, long heldUntil, Long notBefore) {
        MachineIdGrant published;
        synchronized (state) {
            if (closed) {
                return false;
            }
            if (!lost) {
                throw new IllegalStateException("Machine ID " + machineId + " is held: nothing to regain");
            }
            lost = false;
            failing = false;
            publish(grant.number() + 1, block, heldUntil, notBefore);
            published = grant;
        }
        log.log(Level.WARNING, () -> "Claimed " + block.describe() + " (" + scope + ") after the previous machine ID was"
                + " lost; owner '" + owner + "', lease until " + Instant.ofEpochMilli(heldUntil)
                + (published.notBefore().isPresent() ? ", IDs start after "
                        + Instant.ofEpochMilli(published.notBefore().getAsLong()) : ""));
        return true;
    }

    private void runQuietly(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again; the lease must keep trying.
            log.log(Level.WARNING, "The " + renewal + " of machine ID " + machineId + " (" + scope + ") failed unexpectedly", e);
        }
    }

    /**
     * Extends the lease to {@code heldUntil}, which the backend has just confirmed. Returns false, and leaves the
     * lease as it is, once {@link #close} began or the ID was lost: {@code close()} may have revoked the lease
     * while this renewal was in the backend, and reviving it would let IDs out after {@code close()} began.
     * After a failed renewal, logs {@code recovered} once.
     */
    public boolean renewTo(long heldUntil, Supplier<String> recovered) {
        synchronized (state) {
            if (closed || lost) {
                return false;
            }
            lease().renew(heldUntil);
        }
        if (failing) {
            failing = false;
            log.log(Level.INFO, recovered);
        }
        return true;
    }

    /**
     * A renewal failed for a reason that may pass: the lease runs out by itself unless a later renewal succeeds.
     * Logs {@code failure} once per run of failures and returns whether the lease is still held at {@code now}.
     */
    public boolean renewalFailed(long now, String failure) {
        MachineIdLease lease = lease();
        boolean held = lease.isHeldAt(now);
        if (!failing) {
            failing = true;
            log.log(Level.WARNING, failure + (held ? "; IDs are issued until " + Instant.ofEpochMilli(lease.heldUntil())
                    + " unless a " + renewal + " succeeds first" : "; no ID is issued until a " + renewal + " succeeds"));
        }
        return held;
    }

    /**
     * The ID is someone else's now: revokes the lease for good, stops the renewals and logs why, once per grant. With
     * a {@link #regainWith regain}, starts claiming a block again.
     */
    public void lose(String reason) {
        long now = timeSource.currentTimeMillis();
        MachineIdGrant current = grant;
        String what = current == null ? "machine ID " + machineId : current.block().describe();
        String message;
        ScheduledExecutorService executor;
        synchronized (state) {
            if (lost) {
                return;
            }
            lost = true;
            message = what + (current != null && current.block().size() > 1 ? " are" : " is") + " no longer this node's"
                    + " (owner '" + owner + "'): " + reason + (regain != null && !closed
                            ? "; this node claims another machine ID by itself" : "; build a new generator to get another ID");
            if (!closed) {
                lease().revoke(message, now);
            }
            executor = renewals;
            renewals = null;
            if (regain != null && !closed) {
                if (regains == null) {
                    regains = daemonExecutor("vesta-machine-id-regain-" + scope);
                }
                // Not at once: one renewal interval lets a loss that is an operator's release, or a store that is
                // settling, show itself before the claim reads it.
                long first = interval.toMillis();
                scheduleRegain(first, Math.min(first * 2, Math.max(first, MAX_REGAIN_BACKOFF.toMillis())));
            }
        }
        log.log(Level.ERROR, message);
        if (executor != null) {
            executor.shutdown();
        }
    }

    /** Under {@code state}: the next attempt to claim a block again, after {@code delay} ms. */
    private void scheduleRegain(long delay, long nextDelay) {
        try {
            regains.schedule(() -> attemptRegain(nextDelay), delay, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // close() shut the executor down: nothing is claimed any more
        }
    }

    private void attemptRegain(long nextDelay) {
        if (closed || !lost) {
            return;
        }
        Exception failure = null;
        try {
            Regained claimed = regain.claim();
            if (!regained(claimed.block(), claimed.heldUntil(), claimed.notBefore())) {
                claimed.giveBack().run();
            }
        } catch (Exception e) {
            failure = e;
        }
        boolean back;
        synchronized (state) {
            back = !lost && !closed;
            if (!back && !closed) {
                scheduleRegain(nextDelay, Math.min(nextDelay * 2, Math.max(interval.toMillis(),
                        MAX_REGAIN_BACKOFF.toMillis())));
            }
        }
        if (back) {
            for (Runnable listener : regainListeners) {
                runQuietly(listener);
            }
        } else if (!closed) {
            log.log(Level.WARNING, "Cannot claim a machine ID again (" + scope + ", owner '" + owner + "'): "
                    + (failure == null ? "no block was published" : failure.getMessage()) + "; trying again in "
                    + nextDelay + " ms. No ID is issued meanwhile.");
        }
    }

    /**
     * Revokes the lease at once (no ID is issued after close() began), stops the renewals, then runs
     * {@code release} on a thread of its own and waits for it at most {@code bound}: neither a renewal stuck in
     * the backend nor a release stuck the same way can hold {@code close()} longer. A release that fails or does
     * not finish in time is logged with {@code unreleased} (what happens to the ID instead); nothing else is
     * needed, since no ID is issued any more. Nothing is released when no ID was held or it was lost.
     * @return false when close() had been called before, and did nothing this time
     */
    public boolean close(Duration bound, Release release, Supplier<String> unreleased) {
        ScheduledExecutorService executor;
        ScheduledExecutorService regainer;
        boolean held;
        synchronized (state) {
            if (closed) {
                return false;
            }
            closed = true;
            executor = renewals;
            regainer = regains;
            held = machineId >= 0 && !lost;
            if (held) {
                lease().revoke("the machine-ID provider was closed");
            }
        }
        // Read after the revocation: every ID issued before it carries an earlier clock reading.
        long now = timeSource.currentTimeMillis();
        if (executor != null) {
            executor.shutdownNow();
        }
        if (regainer != null) {
            // A claim in the backend finds close() begun when it publishes, and gives its block back itself.
            regainer.shutdownNow();
        }
        if (!held) {
            return true;
        }
        FutureTask<String> task = new FutureTask<>(() -> release.release(now));
        Thread thread = new Thread(task, "vesta-machine-id-release-" + scope + "-" + machineId);
        thread.setDaemon(true);
        thread.start();
        String problem;
        try {
            problem = task.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            problem = "the release did not finish within " + bound.toMillis() + " ms (it may still land)";
        } catch (ExecutionException e) {
            problem = "the release failed: " + e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem = "close() was interrupted (the release may still land)";
        }
        if (problem != null) {
            log.log(Level.WARNING, "Did not release machine ID " + machineId + " (" + scope + "): " + problem + "; "
                    + unreleased.get() + ". No ID was issued after close() began.");
        }
        return true;
    }

    /**
     * The high water a leased provider's release writes, so that the next holder may start at once rather than at the
     * end of the lease. Every ID the provider issued carries a time before {@code now + 1} ({@link #close} revoked the
     * lease before it read {@code now}) and before {@code confirmedExpiry} (the lease never ran past it), but the mark
     * is never below {@code inherited}, the one the provider took over: the previous holder may still issue up to it
     * (it learns at its next renewal that the ID is gone), and the next holder must start after it too.
     *
     * @param inherited the high water the provider took the ID over with, or null
     */
    public static long releaseMark(Long inherited, long confirmedExpiry, long now) {
        long own = Math.min(confirmedExpiry, now + 1);
        return inherited == null ? own : Math.max(inherited, own);
    }

    /**
     * {@code owner} when it is set, not blank and at most {@code maxLength} characters long.
     * @throws InvalidSettingException naming {@code setting} otherwise
     */
    public static String requireOwner(String setting, String owner, int maxLength) {
        String allowed = "1 to " + maxLength + " characters, not blank";
        if (owner == null) {
            throw new InvalidSettingException(setting, null, allowed);
        }
        if (owner.isBlank() || owner.length() > maxLength) {
            throw new InvalidSettingException(setting, owner, allowed,
                    owner.isBlank() ? "is blank" : "is " + owner.length() + " characters long");
        }
        return owner;
    }

    /**
     * {@code value} when it is set and in {@code [min, max]}; {@code why} says where a bound that depends on
     * another setting comes from, as in {@code " (at most a third of vesta.machine-id.db.lease 30000ms)"}.
     * @throws InvalidSettingException naming {@code setting}, the value and the range otherwise
     */
    public static Duration requireInRange(String setting, Duration value, Duration min, Duration max, String why) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidSettingException(setting, value == null ? null : value.toMillis() + "ms",
                    "a duration in [" + min.toMillis() + "ms, " + max.toMillis() + "ms]" + why);
        }
        return value;
    }

    /**
     * {@code interval} when it is set, at least {@code min} and at most the lease over
     * {@link #RENEWALS_PER_LEASE}: the check of a setting that says how often a lease is renewed.
     * @throws InvalidSettingException naming {@code setting} otherwise
     */
    public static Duration requireRenewalInterval(String setting, Duration interval, Duration min, String leaseSetting,
            Duration lease) {
        return requireInRange(setting, interval, min, lease.dividedBy(RENEWALS_PER_LEASE),
                " (at most a third of " + leaseSetting + " " + lease.toMillis() + "ms)");
    }
}
