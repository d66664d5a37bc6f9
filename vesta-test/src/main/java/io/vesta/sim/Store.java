package io.vesta.sim;

/** The kind of model store a simulation runs its nodes against. */
public enum Store {
    /** {@link RowStoreModel}: the database table. */
    ROW,
    /** {@link RedisModel}: the Redis hash. */
    REDIS,
    /** {@link ZooKeeperModel}: ZooKeeper's versioned nodes and sessions. */
    ZOOKEEPER,
    /** {@link EtcdModel}: etcd's revisions and transactions, one key per machine ID. */
    ETCD
}
