package io.vesta.machine;

import io.vesta.InvalidSettingException;

import java.time.Duration;

/**
 * The settings the key-value stores' builders (Redis, etcd) share beyond {@link LeasedProviderBuilder}'s: the renewal
 * called a heartbeat, the bound on the nodes' clock skew that the wait after a loss of writes adds to the lease, and
 * each request's timeout, derived from the heartbeat.
 *
 * @param <B> the builder itself
 */
public abstract class HeartbeatProviderBuilder<B extends HeartbeatProviderBuilder<B>> extends LeasedProviderBuilder<B> {

    /** The default bound on how far apart the clocks of the nodes sharing a store may be. */
    public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofSeconds(1);
    /** The largest bound on the clock skew. */
    public static final Duration MAX_CLOCK_SKEW = Duration.ofMinutes(1);
    /** The shortest request timeout, whatever the heartbeat. */
    private static final Duration MIN_COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private Duration maxClockSkew = DEFAULT_MAX_CLOCK_SKEW;

    protected HeartbeatProviderBuilder(Duration lease, Duration heartbeat) {
        super(lease, heartbeat);
    }

    /** How often the lease is renewed; 5 s by default, at most a third of the lease. */
    public B heartbeat(Duration heartbeat) {
        return renewal(heartbeat);
    }

    /**
     * How far apart the clocks of the nodes sharing the store may be, 1 s by default: after the store may have lost
     * writes (a Redis restart or failover, an etcd restore from a snapshot), a claim waits this much longer than the
     * lease.
     */
    @SuppressWarnings("unchecked")
    public B maxClockSkew(Duration maxClockSkew) {
        this.maxClockSkew = maxClockSkew;
        return (B) this;
    }

    /**
     * The clock skew, checked.
     * @throws InvalidSettingException naming {@code max-clock-skew} when it is not in [0, {@link #MAX_CLOCK_SKEW}]
     */
    protected Duration checkedMaxClockSkew() {
        return InvalidSettingException.requireInRange(settingPrefix + "max-clock-skew", maxClockSkew, Duration.ZERO,
                MAX_CLOCK_SKEW);
    }

    /** Each request's timeout: the heartbeat interval, at least one second and at most the lease. */
    protected static Duration commandTimeout(LeaseSettings settings) {
        Duration timeout = settings.renewal().compareTo(MIN_COMMAND_TIMEOUT) < 0 ? MIN_COMMAND_TIMEOUT
                : settings.renewal();
        return timeout.compareTo(settings.lease()) > 0 ? settings.lease() : timeout;
    }
}
