package io.vesta.sim;

/**
 * A known defect a model store can be switched to, to show that the simulation finds it. {@link #NONE} is the
 * stores' documented behaviour.
 */
public enum Defect {
    /** The documented behaviour. */
    NONE,
    /**
     * Row store: a takeover matches the row on its generation only, not on the lease expiry and high water it read
     * too. A renewal that lands between the taker's read and its write leaves the generation as it was, so the taker
     * starts after the stale high water while the holder issues up to the new one (fixed in commit ea8603c).
     */
    TAKEOVER_FENCED_BY_GENERATION_ONLY,
    /**
     * Redis-like store: the settle rule takes the whole reported uptime off the wait, not the uptime less a second.
     * Redis rounds its uptime up to a whole second, so the wait can end up to a second early (the stop-ship issue).
     */
    SETTLE_WITH_ROUNDED_UP_UPTIME,
    /**
     * Redis-like store: a renewal matches the entry on its fencing token only, as vesta-redis's {@code renew.lua}
     * did before it checked the server instance too. A server restarted from a snapshot taken before a takeover restores the former holder's
     * entry with its token; the former holder (paused or cut off during the takeover) then renews it and issues again
     * while the node that took it over still issues up to its own lease end.
     */
    RENEWAL_FENCED_BY_TOKEN_ONLY,
    /**
     * ZooKeeper: a report (or closing report) that finds its node's version moved on writes again at the version
     * read when the node records this machine ID, whoever's mark it carries, not only when it carries this process's
     * own (the rule of commit 4751e56). A process that hung past its session while a new process of the same owner
     * took the node over then renews it and issues beside the new one.
     */
    ZOOKEEPER_REWRITE_OF_ANOTHER_PROCESS_NODE,
    /**
     * etcd: a renewal or release whose compare failed adopts the keys' mod revisions without checking that they still
     * carry its claim's token and generation. A holder that lost its block (paused past its lease while another node
     * took it over) then writes over the new holder's keys and issues beside it.
     */
    ETCD_ADOPTS_WITHOUT_TOKEN_CHECK,
    /**
     * etcd: a claim that finds the store mark naming another cluster than the response header's (a restore from a
     * snapshot) writes the new cluster's mark but does not settle: it starts after the high water the restored keys
     * carry, below IDs their holders issued under writes the restore lost.
     */
    ETCD_NO_SETTLE_AFTER_RESTORE,
    /**
     * etcd: renewals and releases do not compare the cluster ID of the response header with the claim's. A restore
     * from a snapshot taken before a takeover gives the former holder its keys back at the mod revision it holds as
     * its fence (or its token, which it then adopts); it renews them and issues beside the node that took them over.
     */
    ETCD_RENEWAL_IGNORES_CLUSTER_ID,
    /**
     * etcd: the protocol as first written: a prefix with neither a store mark nor a lease key is new and its first
     * claim does not settle. A restore from a snapshot older than the prefix's first claim (a backup taken before
     * Vesta ran, or a cluster rebuilt empty) leaves exactly that, while the former holders still issue.
     */
    ETCD_EMPTY_PREFIX_WITHOUT_SETTLE,
    /**
     * etcd: the protocol as first written: a claim checks the cluster ID of its read's header but not of its
     * transaction's. A claim transaction delayed across a restore to a snapshot in which its keys and the store mark
     * were absent finds its {@code create_revision == 0} compares true again, lands on the new cluster, and its IDs
     * start without the settle the restore calls for, beside the former holder's.
     */
    ETCD_CLAIM_IGNORES_CLUSTER_CHANGE
}
