package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.machine.FallbackMachineIdProvider;
import io.vesta.machine.MachineIdRange;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code vesta.machine-id.*}: where a node's machine ID comes from, the ranges of embedded nodes and servers, and each
 * strategy's settings. The leased strategies' settings are classes of their own that share {@link LeaseProperties}.
 */
public class MachineIdProperties {

    /** The default of vesta.machine-id.liveness-timeout. */
    public static final Duration DEFAULT_LIVENESS_TIMEOUT = Duration.ofMinutes(2);
    /** The shortest vesta.machine-id.liveness-timeout. */
    public static final Duration MIN_LIVENESS_TIMEOUT = Duration.ofSeconds(1);
    /** The longest vesta.machine-id.liveness-timeout. */
    public static final Duration MAX_LIVENESS_TIMEOUT = Duration.ofDays(1);

    /** Where the machine ID comes from: property (vesta.machine-id.value), ip-list (position of this host in vesta.machine-id.ip-list), db (a lease in a shared table), redis (a lease in a shared Redis hash), zookeeper, etcd (a lease on a key in etcd), or kubernetes-statefulset (the pod's ordinal). */
    private MachineIdStrategy strategy = MachineIdStrategy.PROPERTY;

    /** This node's machine ID, for the property strategy. Must lie in the range of the node's gen-method. */
    private Long value;

    /**
     * IP addresses of every node, in the same order on every node; a node's machine ID is its address's position counted
     * from the range start up (embedded nodes) or from the range's top block down (servers: the first listed gets 1023).
     */
    private List<String> ipList = new ArrayList<>();

    /**
     * How many consecutive machine IDs each node holds and issues under: 1, 2, 4, 8, 16, 32 or 64. A node issues up to
     * that many times one ID's ceiling (2^20 IDs per second), strictly increasing. Blocks are aligned from the range's
     * start, so a range of n IDs holds n / block-size nodes (the server range of 100 IDs: 12 with blocks of 8); with
     * the property strategy, vesta.machine-id.value must start one. Every node sharing a range should use the same size.
     */
    private int blockSize = EmbeddedIdService.DEFAULT_MACHINE_ID_BLOCK_SIZE;

    /**
     * How long a node may go without a held machine ID (its lease lost or run out, and no other one claimed yet)
     * before the vestaLiveness health indicator reports DOWN, so that a platform restarts it. Meanwhile readiness
     * (the vesta indicator) is DOWN and a leased strategy keeps claiming another machine ID with a backoff. 1s to 1d.
     */
    private Duration livenessTimeout = DEFAULT_LIVENESS_TIMEOUT;

    /** Machine IDs of embedded nodes (gen-method embedded). */
    private final Range embeddedRange = new Range(MachineIdRange.EMBEDDED);

    /** Machine IDs of central and REST servers (gen-method central-server or rest). */
    private final Range serverRange = new Range(MachineIdRange.SERVER);

    @NestedConfigurationProperty
    private final DbLeaseProperties db = new DbLeaseProperties();

    @NestedConfigurationProperty
    private final ZooKeeperLeaseProperties zookeeper = new ZooKeeperLeaseProperties();

    @NestedConfigurationProperty
    private final RedisLeaseProperties redis = new RedisLeaseProperties();

    @NestedConfigurationProperty
    private final EtcdLeaseProperties etcd = new EtcdLeaseProperties();

    private final Kubernetes kubernetes = new Kubernetes();

    private final Fallback fallback = new Fallback();

    public Fallback getFallback() {
        return fallback;
    }

    public RedisLeaseProperties getRedis() {
        return redis;
    }

    public EtcdLeaseProperties getEtcd() {
        return etcd;
    }

    public Kubernetes getKubernetes() {
        return kubernetes;
    }

    public DbLeaseProperties getDb() {
        return db;
    }

    public ZooKeeperLeaseProperties getZookeeper() {
        return zookeeper;
    }

    public MachineIdStrategy getStrategy() {
        return strategy;
    }

    public void setStrategy(MachineIdStrategy strategy) {
        this.strategy = strategy;
    }

    public Long getValue() {
        return value;
    }

    public void setValue(Long value) {
        this.value = value;
    }

    public List<String> getIpList() {
        return ipList;
    }

    public int getBlockSize() {
        return blockSize;
    }

    public void setBlockSize(int blockSize) {
        this.blockSize = blockSize;
    }

    public Duration getLivenessTimeout() {
        return livenessTimeout;
    }

    public void setLivenessTimeout(Duration livenessTimeout) {
        this.livenessTimeout = livenessTimeout;
    }

    public void setIpList(List<String> ipList) {
        this.ipList = ipList;
    }

    public Range getEmbeddedRange() {
        return embeddedRange;
    }

    public Range getServerRange() {
        return serverRange;
    }

    /** Where the machine ID comes from. */
    public enum MachineIdStrategy {
        /** The value of vesta.machine-id.value. */
        PROPERTY,
        /** The position of this host's address in vesta.machine-id.ip-list. */
        IP_LIST,
        /** A lease on a row of a shared table, on the application's DataSource (vesta.machine-id.db.*). */
        DB,
        /** A persistent sequential node in ZooKeeper (vesta.machine-id.zookeeper.*); needs Curator. */
        ZOOKEEPER,
        /** The ordinal of a Kubernetes StatefulSet's pod (its host name's -N suffix, or vesta.machine-id.kubernetes.ordinal-variable) plus the range start. */
        KUBERNETES_STATEFULSET,
        /** A lease on a field of a shared Redis hash, through Lettuce (vesta.machine-id.redis.*); needs io.vesta:vesta-redis. */
        REDIS,
        /** A lease on a key in etcd, one per machine ID under a prefix, through jetcd (vesta.machine-id.etcd.*); needs io.vesta:vesta-etcd. */
        ETCD
    }

    /**
     * {@code vesta.machine-id.fallback.*}: a machine ID configured for this node in advance, issued under while the
     * store of a leased strategy (db, redis, zookeeper, etcd) cannot give the node one.
     */
    public static class Fallback {

        /**
         * This node's fallback machine ID (with a block size above 1, the first of its block, aligned from 0), issued
         * under while the store of the db, redis, zookeeper or etcd strategy cannot give the node a machine ID: at start-up,
         * or after its lease ran out or was lost. Must lie outside both the embedded and the server range (narrow the
         * range to leave room, e.g. server-range.max=1015 and fallback IDs 1016-1023) and be each node's own: nothing
         * coordinates it. Needs the time store. Unset: no fallback, the node stops issuing while the store is down.
         */
        private Long value;

        /** How often a node with a fallback checks its leased machine ID, to move to the fallback and back. 1ms to 1m. */
        private Duration checkInterval = FallbackMachineIdProvider.DEFAULT_CHECK_INTERVAL;

        public Long getValue() {
            return value;
        }

        public void setValue(Long value) {
            this.value = value;
        }

        public Duration getCheckInterval() {
            return checkInterval;
        }

        public void setCheckInterval(Duration checkInterval) {
            this.checkInterval = checkInterval;
        }
    }

    /** {@code vesta.machine-id.kubernetes.*}: the machine ID from a StatefulSet pod's ordinal. */
    public static class Kubernetes {

        /** Environment variable that holds the pod's ordinal (for example from the downward API's metadata.labels['apps.kubernetes.io/pod-index']). Unset: the -N suffix of the host name, which is the pod's name in a StatefulSet. */
        private String ordinalVariable;

        public String getOrdinalVariable() {
            return ordinalVariable;
        }

        public void setOrdinalVariable(String ordinalVariable) {
            this.ordinalVariable = ordinalVariable;
        }
    }

    /** An inclusive range of machine IDs within 0-1023. */
    public static class Range {

        /** Lowest machine ID of the range, 0-1023. */
        private long min;

        /** Highest machine ID of the range, at least its min and at most 1023. */
        private long max;

        public Range() {
        }

        Range(MachineIdRange defaults) {
            this.min = defaults.min();
            this.max = defaults.max();
        }

        public long getMin() {
            return min;
        }

        public void setMin(long min) {
            this.min = min;
        }

        public long getMax() {
            return max;
        }

        public void setMax(long max) {
            this.max = max;
        }
    }
}
