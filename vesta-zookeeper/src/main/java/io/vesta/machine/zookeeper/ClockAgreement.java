package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdUnavailableException;

import java.time.Instant;
import java.util.List;

/**
 * The start-up check of this node's clock against the other live nodes': it must lie within
 * {@code maxClockDifference} of their average, or IDs made here would sort far from theirs.
 */
final class ClockAgreement {

    /**
     * Other nodes count as live when ZooKeeper saw a report from them within this many report intervals. Each
     * report is moved on by the time ZooKeeper has seen pass since, so an older one is still a fair sample of
     * that node's clock; the window only keeps long-dead nodes out, and a generous one is robust to a node
     * whose reporter was held up for a moment.
     */
    private static final int LIVE_INTERVALS = 10;

    private final long reportIntervalMillis;
    private final long maxClockDifferenceMillis;
    private final String foreverPath;

    ClockAgreement(long reportIntervalMillis, long maxClockDifferenceMillis, String foreverPath) {
        this.reportIntervalMillis = reportIntervalMillis;
        this.maxClockDifferenceMillis = maxClockDifferenceMillis;
        this.foreverPath = foreverPath;
    }

    /**
     * @param now       this node's clock
     * @param serverNow the ZooKeeper leader's clock, from a write's mtime: a reference for how long ago others
     *                  reported that does not depend on this node's clock, which is what is being checked
     * @throws MachineIdUnavailableException when this node's clock is too far from the others' average
     */
    void checkAgainstOthers(long now, long serverNow, List<ZooKeeperNode> others) {
        long window = LIVE_INTERVALS * reportIntervalMillis;
        List<ZooKeeperNode> live = others.stream()
                .filter(n -> !n.closed() && n.time() > 0 && serverNow - n.mtime() <= window).toList();
        if (live.isEmpty()) {
            return;
        }
        // Each report is moved on by how long ago ZooKeeper received it, so a report interval does not
        // count as a clock difference.
        double sum = 0;
        for (ZooKeeperNode node : live) {
            sum += node.time() + (serverNow - node.mtime());
        }
        long average = Math.round(sum / live.size());
        long difference = now - average;
        if (Math.abs(difference) > maxClockDifferenceMillis) {
            throw new MachineIdUnavailableException("This node's clock reads " + Instant.ofEpochMilli(now) + ", "
                    + Math.abs(difference) + " ms " + (difference < 0 ? "behind" : "ahead of") + " the average of the "
                    + live.size() + " other live nodes under " + foreverPath + " (" + Instant.ofEpochMilli(average)
                    + "); at most " + maxClockDifferenceMillis + " ms (maxClockDifference) is allowed. Fix this host's"
                    + " clock (NTP) and start again.");
        }
    }
}
