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
    ZOOKEEPER_REWRITE_OF_ANOTHER_PROCESS_NODE
}
