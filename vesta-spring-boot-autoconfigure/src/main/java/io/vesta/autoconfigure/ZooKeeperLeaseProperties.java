package io.vesta.autoconfigure;

import io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider;

import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code vesta.machine-id.zookeeper.*}: machine IDs from ZooKeeper sequential nodes, Leaf-snowflake style. The
 * durations are unset unless configured, meaning the provider's own defaults: its class is in vesta-zookeeper, which
 * need not be on the classpath.
 */
public class ZooKeeperLeaseProperties extends LeaseProperties {

    /** ZooKeeper connect string, such as zk1:2181,zk2:2181,zk3:2181. Unset: the application's CuratorFramework bean, which Vesta uses but does not close; the zookeeper strategy needs one or the other. */
    private String connectString;

    /** Namespace under /vesta: nodes that share a namespace share the machine-ID space. */
    private String namespace = ZooKeeperMachineIdProvider.DEFAULT_NAMESPACE;

    /** How often the node writes its current time into its ZooKeeper node. Defaults to 3s. */
    private Duration reportInterval;

    /** Largest difference from the average time of the other live nodes accepted at start-up. Defaults to 5s. */
    private Duration maxClockDifference;

    /** How long an owner may go without reporting before its machine ID may be reclaimed, when the range is otherwise full. Defaults to 7d. */
    private Duration reclaimAfter;

    /** How long to wait for ZooKeeper at start-up before falling back to the cached machine ID. Defaults to 5s. */
    private Duration connectionTimeout;

    /** File caching the machine ID, used when ZooKeeper is unreachable at start-up. Defaults to a file in the temporary directory named after namespace and owner. */
    private Path cacheFile;

    public String getConnectString() {
        return connectString;
    }

    public void setConnectString(String connectString) {
        this.connectString = connectString;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public Duration getReportInterval() {
        return reportInterval;
    }

    public void setReportInterval(Duration reportInterval) {
        this.reportInterval = reportInterval;
    }

    public Duration getMaxClockDifference() {
        return maxClockDifference;
    }

    public void setMaxClockDifference(Duration maxClockDifference) {
        this.maxClockDifference = maxClockDifference;
    }

    public Duration getReclaimAfter() {
        return reclaimAfter;
    }

    public void setReclaimAfter(Duration reclaimAfter) {
        this.reclaimAfter = reclaimAfter;
    }

    public Duration getConnectionTimeout() {
        return connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public Path getCacheFile() {
        return cacheFile;
    }

    public void setCacheFile(Path cacheFile) {
        this.cacheFile = cacheFile;
    }
}
