package io.vesta.machine;

import io.vesta.time.TimeSource;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A leased provider with a machine ID configured for this node in advance, outside the range the store hands out (the
 * original Vesta design's answer to a store that is down): the fallback is issued under while the store cannot give the
 * node a block (at start-up, or after the lease ran out or was lost and none was claimed again), and the node goes back
 * to a leased block as soon as the store gives it one.
 *
 * <p>Each switch is a new {@link MachineIdGrant}: the generator ({@code EmbeddedIdService}) closes the generator of the
 * block it leaves and starts one on the block it goes to, after every mark that block has (its time-store file, the
 * store's {@code notBefore}, and what this process issued under it before). A switch to the fallback is made only once
 * the leased block's own lease no longer lets an ID be issued, and the fallback's lease is ended before the leased block
 * is published again, so the generator never issues under both at once; neither would repeat an ID if it did, as they
 * are different machine IDs.
 *
 * <p>The fallback ID is nobody else's only if the operator gives each node its own, as with a fixed machine ID; nothing
 * coordinates it. Checks the leased block every {@code checkInterval} on a daemon thread of its own, and claims at
 * start-up again from there with a backoff that doubles up to {@link LeasedMachineIdProvider#MAX_REGAIN_BACKOFF}.
 */
public final class FallbackMachineIdProvider implements MachineIdProvider {

    /** How often the leased block is checked when no interval is given. */
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(1);

    private static final System.Logger LOG = System.getLogger(FallbackMachineIdProvider.class.getName());

    private final MachineIdProvider leased;
    private final MachineIdBlock fallback;
    private final String setting;
    private final TimeSource timeSource;
    private final Duration checkInterval;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final long maxBackoffTicks;

    // Under this object's lock:
    private MachineIdRange range;
    private int blockSize;
    /** Whether the leased provider's acquire succeeded: from then on it renews and claims again by itself. */
    private boolean acquired;
    private long ticksToAcquire;
    private long acquireBackoff = 1;
    /** The leased provider's grant the current grant was made from; null while on the fallback or before. */
    private MachineIdGrant leasedGrant;
    private ScheduledExecutorService checks;
    private volatile boolean closed;
    /** What the generator issues under now; null before acquire. */
    private volatile MachineIdGrant grant;
    private volatile boolean onFallback;
    /** A thread of checks() is in the leased provider's acquire. */
    private boolean acquiring;

    /**
     * @param leased the provider of leased blocks; closed with this one
     * @param fallback the fallback block, already checked to lie outside every range a store hands out
     * @param setting the setting that gave the fallback, for messages ({@code vesta.machine-id.fallback.value})
     * @param checkInterval how often the leased block is checked, and the first wait before a claim at start-up again
     */
    public FallbackMachineIdProvider(MachineIdProvider leased, MachineIdBlock fallback, String setting,
            TimeSource timeSource, Duration checkInterval) {
        if (checkInterval.isNegative() || checkInterval.isZero()) {
            throw new IllegalArgumentException("checkInterval must be positive, was " + checkInterval);
        }
        this.leased = leased;
        this.fallback = fallback;
        this.setting = setting;
        this.timeSource = timeSource;
        this.checkInterval = checkInterval;
        this.maxBackoffTicks = Math.max(1, LeasedMachineIdProvider.MAX_REGAIN_BACKOFF.toMillis() / checkInterval.toMillis());
    }

    /**
     * The leased provider's block; when it cannot give one ({@link MachineIdUnavailableException}: the store is down,
     * or every block is held), the fallback block, and claims are tried again in the background. Any other failure (a
     * setting) is the leased provider's and stops start-up.
     */
    @Override
    public long acquire(MachineIdRange range, int blockSize) {
        if (blockSize != fallback.size()) {
            throw new IllegalArgumentException("The fallback " + fallback.describe() + " (" + setting
                    + ") is a block of " + fallback.size() + ", not of " + blockSize);
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("This provider was closed; build a new one");
            }
            if (grant != null) {
                throw new IllegalStateException("This provider already holds " + grant.block().describe());
            }
            this.range = range;
            this.blockSize = blockSize;
        }
        leased.onRegain(this::leasedRegained);
        long first;
        try {
            first = leased.acquire(range, blockSize);
        } catch (MachineIdUnavailableException e) {
            synchronized (this) {
                publishFallback("the machine-ID provider " + leased.describe() + " cannot give one at start-up ("
                        + e.getMessage() + ")");
                startChecks();
            }
            return fallback.first();
        }
        synchronized (this) {
            acquired = true;
            MachineIdGrant held = leasedGrantNow(first);
            publishLeased(held);
            startChecks();
            return grant.block().first();
        }
    }

    /** The leased provider's grant now; a provider without grants gets one from its block, lease and mark. */
    private MachineIdGrant leasedGrantNow(long first) {
        return leased.grant().orElseGet(() -> new MachineIdGrant(1, new MachineIdBlock(first, blockSize),
                leased.lease(), leased.notBefore()));
    }

    private void startChecks() {
        if (checks == null) {
            checks = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, "vesta-machine-id-fallback-" + fallback);
                thread.setDaemon(true);
                return thread;
            });
            checks.scheduleWithFixedDelay(this::tick, checkInterval.toMillis(), checkInterval.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    private void tick() {
        try {
            checkNow();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again; the checks must go on.
            LOG.log(Level.WARNING, "The check of the leased machine ID of " + describe() + " failed unexpectedly", e);
        }
    }

    /**
     * Checks the leased block now, as the daemon thread does every interval: before the leased provider acquired a
     * block, claims one (with a backoff); moves to the fallback once the leased block's lease no longer lets an ID be
     * issued, and back to a leased block once one is held. Runs the {@link #onRegain} listeners after a switch.
     * @return whether IDs are issued under the fallback afterwards
     */
    public boolean checkNow() {
        boolean claim;
        synchronized (this) {
            if (closed || grant == null) {
                return onFallback;
            }
            claim = !acquired && !acquiring && --ticksToAcquire <= 0;
            acquiring |= claim;
        }
        if (claim) {
            claimAgain();
        }
        if (refresh()) {
            notifyListeners();
        }
        return onFallback;
    }

    /** Outside the lock: a claim may wait for the store as long as its timeout allows. */
    private void claimAgain() {
        long first;
        try {
            first = leased.acquire(range, blockSize);
        } catch (RuntimeException e) {
            synchronized (this) {
                acquiring = false;
                acquireBackoff = Math.min(acquireBackoff * 2, maxBackoffTicks);
                ticksToAcquire = acquireBackoff;
            }
            LOG.log(Level.WARNING, "Still issuing under the fallback " + fallback.describe() + " (" + setting + "): "
                    + e.getMessage() + "; claiming again in " + ticksToAcquire * checkInterval.toMillis() + " ms");
            return;
        }
        synchronized (this) {
            acquiring = false;
            acquired = true;
            if (closed) {
                return; // close() closes the leased provider, which gives the block back
            }
            LOG.log(Level.INFO, () -> "Acquired " + new MachineIdBlock(first, blockSize).describe() + " from "
                    + leased.describe() + " after starting under the fallback " + fallback.describe());
        }
    }

    /** The leased provider claimed a block again by itself after a loss. */
    private void leasedRegained() {
        if (refresh()) {
            notifyListeners();
        }
    }

    /**
     * The switch, if one is due at the clock's reading now. A leased block is usable while its lease is held now; the
     * fallback is used only once it is not (so the generator, which checks the same lease before every ID, issues no
     * more under it), and it is left only once a leased lease is held again.
     * @return whether a new grant was published
     */
    private synchronized boolean refresh() {
        if (closed || grant == null) {
            return false;
        }
        long now = timeSource.currentTimeMillis();
        MachineIdGrant held = acquired ? leased.grant().orElse(null) : null;
        if (held == null && acquired && leasedGrant != null) {
            held = leasedGrant;
        }
        boolean usable = held != null && held.lease().isHeldAt(now);
        if (onFallback) {
            if (usable) {
                grant.lease().end("IDs are issued under the leased " + held.block().describe() + " again", now);
                publishLeased(held);
                LOG.log(Level.WARNING, "IDs are issued under the leased " + held.block().describe() + " ("
                        + leased.describe() + ") again, no longer under the fallback " + fallback.describe());
                return true;
            }
            return false;
        }
        if (held != null && held.number() != leasedGrant.number() && usable) {
            publishLeased(held); // claimed again by itself after a loss
            return true;
        }
        if (!usable) {
            MachineIdLease lease = (held != null ? held : leasedGrant).lease();
            publishFallback(lease.lostReason() != null ? lease.lostReason() : "its lease ran out at "
                    + Instant.ofEpochMilli(lease.unheldSince()) + " and has not been renewed");
            return true;
        }
        return false;
    }

    private void publishLeased(MachineIdGrant held) {
        leasedGrant = held;
        grant = new MachineIdGrant(grant == null ? 1 : grant.number() + 1, held.block(), held.lease(), held.notBefore());
        onFallback = false;
    }

    /** Under the lock. A lease of its own each time, ended when a leased block is issued under again. */
    private void publishFallback(String why) {
        MachineIdLease lease = new MachineIdLease(Long.MAX_VALUE);
        grant = new MachineIdGrant(grant == null ? 1 : grant.number() + 1, fallback, lease, OptionalLong.empty());
        onFallback = true;
        LOG.log(Level.WARNING, "IDs are issued under the fallback " + fallback.describe() + " (" + setting + ") from now"
                + " on: " + (leasedGrant == null ? "no leased machine ID, " : leasedGrant.block().describe() + ": ") + why
                + ". The node goes back to a leased machine ID once the store gives it one.");
    }

    private void notifyListeners() {
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "A listener of a machine-ID switch of " + describe() + " failed", e);
            }
        }
    }

    /** Whether IDs are issued under the fallback block now. */
    public boolean isOnFallback() {
        return onFallback;
    }

    /** The fallback block. */
    public MachineIdBlock fallback() {
        return fallback;
    }

    /** The provider of leased blocks. */
    public MachineIdProvider leased() {
        return leased;
    }

    @Override
    public MachineIdLease lease() {
        MachineIdGrant current = grant;
        return current == null ? leased.lease() : current.lease();
    }

    @Override
    public OptionalLong notBefore() {
        MachineIdGrant current = grant;
        return current == null ? OptionalLong.empty() : current.notBefore();
    }

    /**
     * The block IDs are issued under now, leased or the fallback; a switch that is due is made first. The listeners
     * are not run from here: the caller is the generator moving to the newest grant, and running its own listener
     * inside that move would start a second generator on the same block.
     */
    @Override
    public Optional<MachineIdGrant> grant() {
        refresh();
        return Optional.ofNullable(grant);
    }

    @Override
    public void onRegain(Runnable listener) {
        listeners.add(listener);
    }

    @Override
    public Optional<MachineIdLeases> leases() {
        return leased.leases();
    }

    /** {@code "fallback 1016 (vesta.machine-id.fallback.value) ..."} while on the fallback, else the leased provider's. */
    @Override
    public String describe() {
        return onFallback ? "fallback " + fallback + " (" + setting + "; " + leased.describe() + " cannot give a machine"
                + " ID)" : leased.describe();
    }

    /** Stops the checks, ends the fallback's lease and closes the leased provider, which gives its block back. */
    @Override
    public void close() {
        ScheduledExecutorService running;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = checks;
            if (onFallback) {
                grant.lease().end("the machine-ID provider was closed", timeSource.currentTimeMillis());
            }
        }
        if (running != null) {
            running.shutdownNow();
        }
        leased.close();
    }

    @Override
    public String toString() {
        return "FallbackMachineIdProvider[" + describe() + ", fallback " + fallback + "]";
    }
}
