package io.vesta.autoconfigure;

import java.time.Duration;

/**
 * The lease settings that the db, redis, zookeeper and etcd strategies share: who holds a machine ID and how long it stays
 * held without renewal. One class, so that the four stores bind, describe and default them alike; each store's
 * properties extend it, which keeps the names flat ({@code vesta.machine-id.db.lease}). Unset means the provider's own
 * default (30s for the lease, a zookeeper lease being at most half of reclaim-after), as the configuration metadata
 * states it.
 */
public abstract class LeaseProperties {

    /** Who holds a lease; a restart with the same owner gets its machine ID back. Defaults to host:server.port, or host:pid without a configured port. */
    private String owner;

    /** How long a lease lasts without renewal; a node stops issuing when its lease runs out. 1s to 1h. Defaults to 30s. */
    // Unset, not LeaseSettings.DEFAULT_LEASE: the zookeeper provider derives its default from reclaim-after.
    private Duration lease;

    public String getOwner() {
        return owner;
    }

    public void setOwner(String owner) {
        this.owner = owner;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }
}
