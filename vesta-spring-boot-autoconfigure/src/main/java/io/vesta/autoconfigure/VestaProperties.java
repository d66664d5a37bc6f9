package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.machine.redis.RedisMachineIdProvider;
import io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider;
import io.vesta.sequence.SequencerStrategy;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Configuration of Vesta ID generation: {@code vesta.*}. */
@ConfigurationProperties("vesta")
public class VestaProperties {

    /** ID layout: max-peak orders by second (2^20 IDs/s per machine ID), min-granularity by millisecond (1024 IDs/ms). Changing it needs a restart. */
    private IdType type = EmbeddedIdService.DEFAULT_TYPE;

    /** Where IDs are made: embedded generates them in this process, client takes them from central servers (vesta.client.*). */
    private Mode mode = Mode.EMBEDDED;

    /** How IDs issued by this node are marked: embedded, central-server or rest. Also selects the default machine-ID range. */
    private GenMethod genMethod = EmbeddedIdService.DEFAULT_GEN_METHOD;

    /** Version bit of issued IDs: 0 normally, 1 for the extension/migration window (such IDs are negative longs). */
    private int version = (int) EmbeddedIdService.DEFAULT_VERSION;

    /** How the node's sequence state is guarded: lock (ReentrantLock), synchronized, or cas (lock-free). */
    private SequencerStrategy sequencer = EmbeddedIdService.DEFAULT_SEQUENCER;

    /** The instant that time fields count from, ISO-8601 with an offset. Set a later epoch only for new deployments: IDs made with another epoch decode to other times. */
    private String epoch = IdCodec.DEFAULT_EPOCH_TEXT;

    private final MachineId machineId = new MachineId();

    private final Clock clock = new Clock();

    private final TimeStore timeStore = new TimeStore();

    public IdType getType() {
        return type;
    }

    public void setType(IdType type) {
        this.type = type;
    }

    public Mode getMode() {
        return mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    public GenMethod getGenMethod() {
        return genMethod;
    }

    public void setGenMethod(GenMethod genMethod) {
        this.genMethod = genMethod;
    }

    public int getVersion() {
        return version;
    }

    public void setVersion(int version) {
        this.version = version;
    }

    public SequencerStrategy getSequencer() {
        return sequencer;
    }

    public void setSequencer(SequencerStrategy sequencer) {
        this.sequencer = sequencer;
    }

    public String getEpoch() {
        return epoch;
    }

    public void setEpoch(String epoch) {
        this.epoch = epoch;
    }

    public MachineId getMachineId() {
        return machineId;
    }

    public Clock getClock() {
        return clock;
    }

    public TimeStore getTimeStore() {
        return timeStore;
    }

    /** Where IDs are made. */
    public enum Mode {
        /** Generate IDs in this process. */
        EMBEDDED,
        /** Take IDs from central servers (vesta.client.*). */
        CLIENT
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
        REDIS
    }

    /** {@code vesta.machine-id.*}. */
    public static class MachineId {

        /** The default of vesta.machine-id.liveness-timeout. */
        public static final Duration DEFAULT_LIVENESS_TIMEOUT = Duration.ofMinutes(2);
        /** The shortest vesta.machine-id.liveness-timeout. */
        public static final Duration MIN_LIVENESS_TIMEOUT = Duration.ofSeconds(1);
        /** The longest vesta.machine-id.liveness-timeout. */
        public static final Duration MAX_LIVENESS_TIMEOUT = Duration.ofDays(1);

        /** Where the machine ID comes from: property (vesta.machine-id.value), ip-list (position of this host in vesta.machine-id.ip-list), db (a lease in a shared table), redis (a lease in a shared Redis hash), zookeeper, or kubernetes-statefulset (the pod's ordinal). */
        private MachineIdStrategy strategy = MachineIdStrategy.PROPERTY;

        /** This node's machine ID, for the property strategy. Must lie in the range of the node's gen-method. */
        private Long value;

        /** IP addresses of every node, in the same order on every node; a node's machine ID is its address's position plus the range start. */
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

        private final Db db = new Db();

        private final ZooKeeper zookeeper = new ZooKeeper();

        private final Redis redis = new Redis();

        private final Kubernetes kubernetes = new Kubernetes();

        public Redis getRedis() {
            return redis;
        }

        public Kubernetes getKubernetes() {
            return kubernetes;
        }

        public Db getDb() {
            return db;
        }

        public ZooKeeper getZookeeper() {
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

    /** {@code vesta.machine-id.db.*}: machine IDs leased from a shared table. */
    public static class Db {

        /** Table of machine-ID leases, one row per machine ID; an SQL identifier, optionally schema.table. */
        private String table = DbMachineIdProvider.DEFAULT_TABLE;

        /** Who holds a lease; a restart with the same owner gets its machine ID back. Defaults to host:server.port, or host:pid without a configured port. */
        private String owner;

        /** How long a lease lasts without renewal; a node stops issuing when its lease runs out. 1s to 1h. */
        private Duration lease = LeaseSettings.DEFAULT_LEASE;

        /** How often the lease is renewed; at most a third of the lease. Defaults to 5s. */
        // Unset means the provider's own default: its class is in vesta-jdbc, which need not be on the classpath.
        private Duration heartbeat;

        /** When to create the lease table at start-up if it is missing, with the shipped DDL for PostgreSQL, MySQL/MariaDB or H2: embedded (only on an embedded database, as Boot does for its own schemas), always, or never (migrations own the schema). */
        private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }

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

        public Duration getHeartbeat() {
            return heartbeat;
        }

        public void setHeartbeat(Duration heartbeat) {
            this.heartbeat = heartbeat;
        }

        public DatabaseInitializationMode getInitializeSchema() {
            return initializeSchema;
        }

        public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
            this.initializeSchema = initializeSchema;
        }
    }

    /** {@code vesta.machine-id.redis.*}: machine IDs leased from a Redis hash. */
    public static class Redis {

        /** Redis to lease from, as a Lettuce URI such as redis://user:secret@host:6379/0, rediss:// for TLS, or redis-sentinel://. Defaults to the Redis the application uses through Spring Boot (spring.data.redis.*, or a Docker Compose or Testcontainers service connection), else localhost:6379. */
        private String url;

        /** Hash that holds the leases, one field per machine ID: nodes that share the key share the range. */
        private String key = RedisMachineIdProvider.DEFAULT_KEY;

        /** Who holds a lease; a restart with the same owner gets its machine ID back. Defaults to host:server.port, or host:pid without a configured port. */
        private String owner;

        /** How long a lease lasts without renewal; a node stops issuing when its lease runs out. The same on every node of a key. 1s to 1h. */
        private Duration lease = LeaseSettings.DEFAULT_LEASE;

        /** How often the lease is renewed; at most a third of the lease. Defaults to 5s. */
        private Duration heartbeat;

        /** How far apart the clocks of the nodes sharing the key may be. After Redis restarted or failed over (and may have lost writes), a claim waits the lease plus this before its first ID. 0 to 1m. */
        // Not RedisMachineIdProvider's constant: this class must load without vesta-redis (only a String constant is
        // inlined by the compiler). ConfigurationMetadataDefaultsTests holds the two equal.
        private Duration maxClockSkew = Duration.ofSeconds(1);

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public String getKey() {
            return key;
        }

        public void setKey(String key) {
            this.key = key;
        }

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

        public Duration getHeartbeat() {
            return heartbeat;
        }

        public void setHeartbeat(Duration heartbeat) {
            this.heartbeat = heartbeat;
        }

        public Duration getMaxClockSkew() {
            return maxClockSkew;
        }

        public void setMaxClockSkew(Duration maxClockSkew) {
            this.maxClockSkew = maxClockSkew;
        }
    }

    /** {@code vesta.machine-id.zookeeper.*}: machine IDs from ZooKeeper sequential nodes, Leaf-snowflake style. */
    public static class ZooKeeper {

        /** ZooKeeper connect string, such as zk1:2181,zk2:2181,zk3:2181. Required for the zookeeper strategy. */
        private String connectString;

        /** Namespace under /vesta: nodes that share a namespace share the machine-ID space. */
        private String namespace = ZooKeeperMachineIdProvider.DEFAULT_NAMESPACE;

        /** Who owns a node; a restart with the same owner gets its machine ID back. Defaults to ip:server.port, or ip:pid without a configured port. */
        private String owner;

        // The durations below are unset unless configured, meaning the provider's own defaults: its class is in
        // vesta-zookeeper, which need not be on the classpath.

        /** How often the node writes its current time into its ZooKeeper node. Defaults to 3s. */
        private Duration reportInterval;

        /** Largest difference from the average time of the other live nodes accepted at start-up. Defaults to 5s. */
        private Duration maxClockDifference;

        /** How long an owner may go without reporting before its machine ID may be reclaimed, when the range is otherwise full. Defaults to 7d. */
        private Duration reclaimAfter;

        /** How long to wait for ZooKeeper at start-up before falling back to the cached machine ID. Defaults to 5s. */
        private Duration connectionTimeout;

        /** How long a node issues after its last successful report; a node cut off from ZooKeeper for longer stops issuing, and a restart after a crash starts after the crashed run's lease end. At least 3 report intervals, at most half of reclaim-after. Defaults to 30s, or half of reclaim-after if that is shorter. */
        private Duration lease;

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

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

        public String getOwner() {
            return owner;
        }

        public void setOwner(String owner) {
            this.owner = owner;
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

    /** {@code vesta.clock.*}. */
    public static class Clock {

        /** Largest step back of the clock that is waited out; a larger one refuses IDs until the clock catches up. Defaults to 5ms for min-granularity and 1s for max-peak; at most 1m. */
        private Duration maxBackwardWait;

        public Duration getMaxBackwardWait() {
            return maxBackwardWait;
        }

        public void setMaxBackwardWait(Duration maxBackwardWait) {
            this.maxBackwardWait = maxBackwardWait;
        }
    }

    /** {@code vesta.time-store.*}. */
    public static class TimeStore {

        /** Whether a high-water mark is kept ahead of issued time, so that a restart with the clock set back cannot repeat IDs. On by default; turn it off only where the clock cannot be set back, or the mark cannot be kept. */
        private boolean enabled = true;

        /** Directory of the high-water marks, one file per machine ID and gen-method holding a mark per version and type with its epoch, locked while the generator runs; a start whose epoch would repeat issued IDs is refused. Containers should mount it on a volume that outlives the container. */
        private Path directory = Path.of(System.getProperty("java.io.tmpdir"), "vesta");

        /** One file for the high-water mark instead of a file in the directory; in server mode both generators share it, keeping the higher mark. */
        private Path file;

        /** How far ahead of issued time the high-water mark is written each time; a restart right after a crash waits up to this long. */
        private Duration persistStep = EmbeddedIdService.DEFAULT_PERSIST_STEP;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Path getDirectory() {
            return directory;
        }

        public void setDirectory(Path directory) {
            this.directory = directory;
        }

        public Path getFile() {
            return file;
        }

        public void setFile(Path file) {
            this.file = file;
        }

        public Duration getPersistStep() {
            return persistStep;
        }

        public void setPersistStep(Duration persistStep) {
            this.persistStep = persistStep;
        }
    }
}
