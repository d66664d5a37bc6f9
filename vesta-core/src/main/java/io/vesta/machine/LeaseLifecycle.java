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
 * <li>{@link #lose} revokes the lease for good: only a new provider gets an ID again.</li>
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
    private final MachineIdLease lease = new MachineIdLease(Long.MIN_VALUE);
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

    /** The lease the generator reads. */
    public MachineIdLease lease() {
        return lease;
    }

    /** The ID once {@link #start} succeeded, else -1. */
    public long machineId() {
        return machineId;
    }

    /** Whether {@link #close} began. */
    public boolean isClosed() {
        return closed;
    }

    /** Whether {@link #lose} was called. */
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
        synchronized (state) {
            if (this.machineId >= 0) {
                throw new IllegalStateException("This lease already holds machine ID " + this.machineId);
            }
            if (closed) {
                return false;
            }
            this.machineId = machineId;
            lease.renew(heldUntil);
            String name = "vesta-machine-id-" + this.renewal + "-" + scope + "-" + machineId;
            ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, name);
                thread.setDaemon(true);
                return thread;
            });
            long millis = interval.toMillis();
            executor.scheduleWithFixedDelay(() -> runQuietly(renewal), millis, millis, TimeUnit.MILLISECONDS);
            renewals = executor;
            return true;
        }
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
            lease.renew(heldUntil);
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
        boolean held = lease.isHeldAt(now);
        if (!failing) {
            failing = true;
            log.log(Level.WARNING, failure + (held ? "; IDs are issued until " + Instant.ofEpochMilli(lease.heldUntil())
                    + " unless a " + renewal + " succeeds first" : "; no ID is issued until a " + renewal + " succeeds"));
        }
        return held;
    }

    /** The ID is someone else's now: revokes the lease for good, stops the renewals and logs why, once. */
    public void lose(String reason) {
        String message = "machine ID " + machineId + " is no longer this node's (owner '" + owner + "'): " + reason
                + "; build a new generator to get another ID";
        ScheduledExecutorService executor;
        synchronized (state) {
            if (lost) {
                return;
            }
            lost = true;
            if (!closed) {
                lease.revoke(message);
            }
            executor = renewals;
        }
        log.log(Level.ERROR, message);
        if (executor != null) {
            executor.shutdown();
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
        boolean held;
        synchronized (state) {
            if (closed) {
                return false;
            }
            closed = true;
            executor = renewals;
            held = machineId >= 0 && !lost;
            if (held) {
                lease.revoke("the machine-ID provider was closed");
            }
        }
        // Read after the revocation: every ID issued before it carries an earlier clock reading.
        long now = timeSource.currentTimeMillis();
        if (executor != null) {
            executor.shutdownNow();
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
