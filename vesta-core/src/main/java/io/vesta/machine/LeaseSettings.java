package io.vesta.machine;

import io.vesta.InvalidSettingException;
import io.vesta.time.TimeSource;

import java.time.Duration;

/**
 * How a {@link LeasedMachineIdProvider} runs its lease, whatever the store.
 *
 * @param owner         who this node is, stable across its restarts
 * @param lease         how long a block stays this node's after a renewal the store confirmed
 * @param renewal       how often the lease is renewed
 * @param timeSource    the clock every lease end is read and written by
 * @param timer         what runs the renewals
 * @param settingPrefix put before each setting's kebab-case name in errors: {@code "vesta.machine-id.db."}
 * @param limits        the values the store allows
 */
public record LeaseSettings(String owner, Duration lease, Duration renewal, TimeSource timeSource, LeaseTimer timer,
        String settingPrefix, Limits limits) {

    /** The default lease: how long a node issues after its last successful renewal. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** A lease spans at least this many renewal intervals, so that two renewals in a row may fail before it runs out. */
    public static final int RENEWALS_PER_LEASE = 3;

    /**
     * What a store allows.
     *
     * @param maxOwnerLength the longest owner name the store holds
     * @param minLease       the shortest lease
     * @param maxLease       the longest lease
     * @param leaseWhy       where a bound of the lease comes from, for the message: {@code " (at most half of ...)"}
     * @param minRenewal     the shortest renewal interval
     * @param maxRenewal     the longest renewal interval, whatever the lease (at most a third of the lease in any case)
     * @param renewalSetting the renewal interval's setting name: {@code "heartbeat"}, {@code "report-interval"}
     */
    public record Limits(int maxOwnerLength, Duration minLease, Duration maxLease, String leaseWhy, Duration minRenewal,
            Duration maxRenewal, String renewalSetting) {

        /** The limits of the stores whose leases expire by time alone: leases of 1 s to 1 h, heartbeats from 10 ms. */
        public static Limits heartbeat(int maxOwnerLength) {
            return new Limits(maxOwnerLength, Duration.ofSeconds(1), Duration.ofHours(1), "", Duration.ofMillis(10),
                    Duration.ofHours(1), "heartbeat");
        }
    }

    /**
     * These settings, once each is checked: the owner set, not blank and not too long, the lease in its bounds and the
     * renewal interval in its own and at most a third of the lease.
     * @throws InvalidSettingException naming the first setting that cannot be used, its value and what is allowed
     */
    public LeaseSettings validate() {
        String prefix = settingPrefix == null ? "" : settingPrefix;
        InvalidSettingException.requireSet(prefix + "time-source", timeSource, "an io.vesta.time.TimeSource");
        InvalidSettingException.requireSet(prefix + "timer", timer, "an io.vesta.machine.LeaseTimer");
        requireOwner(prefix + "owner", owner, limits.maxOwnerLength());
        requireInRange(prefix + "lease", lease, limits.minLease(), limits.maxLease(), limits.leaseWhy());
        Duration third = lease.dividedBy(RENEWALS_PER_LEASE);
        boolean byLease = third.compareTo(limits.maxRenewal()) < 0;
        requireInRange(prefix + limits.renewalSetting(), renewal, limits.minRenewal(), byLease ? third : limits.maxRenewal(),
                byLease ? " (at most a third of " + prefix + "lease " + lease.toMillis() + "ms)" : "");
        return this;
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
     * {@code value} when it is set and in {@code [min, max]}; {@code why} says where a bound that depends on another
     * setting comes from, as in {@code " (at most a third of vesta.machine-id.db.lease 30000ms)"}.
     * @throws InvalidSettingException naming {@code setting}, the value and the range otherwise
     */
    public static Duration requireInRange(String setting, Duration value, Duration min, Duration max, String why) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidSettingException(setting, value == null ? null : value.toMillis() + "ms",
                    "a duration in [" + min.toMillis() + "ms, " + max.toMillis() + "ms]" + why);
        }
        return value;
    }
}
