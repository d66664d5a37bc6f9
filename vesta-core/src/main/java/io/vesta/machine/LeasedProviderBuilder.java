package io.vesta.machine;

import io.vesta.time.TimeSource;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * The settings every leased provider's builder shares (owner, lease, renewal interval, clock, timer, the prefix of
 * the setting names in errors) and their check, so that the database, Redis and ZooKeeper builders differ only in
 * their store's settings.
 *
 * @param <B> the builder itself
 */
public abstract class LeasedProviderBuilder<B extends LeasedProviderBuilder<B>> {

    private String owner;
    private Duration lease;
    private Duration renewal;
    private TimeSource timeSource = TimeSource.system();
    private LeaseTimer timer = LeaseTimer.daemonThread();
    protected String settingPrefix = "";

    protected LeasedProviderBuilder(Duration lease, Duration renewal) {
        this.lease = lease;
        this.renewal = renewal;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** Who this node is, stable across its restarts; the store's default owner when not set. */
    public B owner(String owner) {
        this.owner = owner;
        return self();
    }

    /** How long a block stays this node's after a renewal the store confirmed; 30 s by default. */
    public B lease(Duration lease) {
        this.lease = lease;
        return self();
    }

    /** The clock lease ends are read and written by. */
    public B timeSource(TimeSource timeSource) {
        this.timeSource = timeSource;
        return self();
    }

    /** What runs the renewals: a daemon thread by default; a test's scheduler to drive the provider step by step. */
    public B timer(LeaseTimer timer) {
        this.timer = timer;
        return self();
    }

    /**
     * Put before each setting's kebab-case name in the {@link io.vesta.InvalidSettingException} of {@code build()}, so
     * it names what the user typed: {@code "vesta.machine-id.db."} gives {@code "vesta.machine-id.db.lease"}.
     */
    public B settingPrefix(String settingPrefix) {
        this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
        return self();
    }

    /** Sets the renewal interval, under the store's name for it ({@code heartbeat}, {@code reportInterval}). */
    protected B renewal(Duration renewal) {
        this.renewal = renewal;
        return self();
    }

    /** The lease as set, before it is checked; null when the store derives its default. */
    protected Duration lease() {
        return lease;
    }

    protected Duration renewal() {
        return renewal;
    }

    /**
     * The checked settings.
     * @param limits       what the store allows
     * @param defaultOwner the owner when none was set
     * @throws io.vesta.InvalidSettingException naming the first setting that cannot be used
     */
    protected LeaseSettings settings(LeaseSettings.Limits limits, Supplier<String> defaultOwner) {
        String who = owner != null ? owner : defaultOwner.get();
        return new LeaseSettings(who, lease, renewal, timeSource, timer, settingPrefix, limits).validate();
    }
}
