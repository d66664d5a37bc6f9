package io.vesta.autoconfigure;

import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider;
import io.vesta.time.TimeSource;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;

/**
 * The machine-ID providers that share an ID space through a database or ZooKeeper, built from
 * {@code vesta.machine-id.db.*} and {@code vesta.machine-id.zookeeper.*}. ZooKeeper is reached only through
 * {@link ZooKeeperProviders}, so that applications without vesta-zookeeper never load its types.
 */
final class SharedMachineIdProviders {

    private static final String ZOOKEEPER_PROVIDER = "io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider";
    private static final String CURATOR = "org.apache.curator.framework.CuratorFramework";

    private SharedMachineIdProviders() {
    }

    static MachineIdProvider database(VestaProperties.Db db, DataSource dataSource, TimeSource timeSource, String port) {
        if (dataSource == null) {
            throw new InvalidVestaPropertyException("vesta.machine-id.strategy", "db",
                    "db together with a DataSource (spring.datasource.*, or a DataSource bean of your own), or another strategy",
                    "needs a DataSource and the application has none");
        }
        try {
            DbMachineIdProvider.Builder builder = DbMachineIdProvider.builder(dataSource)
                    .settingPrefix("vesta.machine-id.db.")
                    .table(db.getTable())
                    .owner(db.getOwner() != null ? db.getOwner() : defaultOwner(DbMachineIdProvider.defaultOwner(), port))
                    .lease(db.getLease())
                    .heartbeat(db.getHeartbeat())
                    .initializeSchema(db.isInitializeSchema())
                    .timeSource(timeSource);
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new InvalidVestaPropertyException("vesta.machine-id.db", e);
        }
    }

    static MachineIdProvider zooKeeper(VestaProperties.ZooKeeper zookeeper, TimeSource timeSource, String port, ClassLoader classLoader) {
        if (!ClassUtils.isPresent(ZOOKEEPER_PROVIDER, classLoader) || !ClassUtils.isPresent(CURATOR, classLoader)) {
            throw new InvalidVestaPropertyException("vesta.machine-id.strategy", "zookeeper",
                    "zookeeper with io.vesta:vesta-zookeeper on the classpath, or another strategy",
                    "needs io.vesta:vesta-zookeeper (which brings Apache Curator), and it is not on the classpath");
        }
        if (zookeeper.getConnectString() == null || zookeeper.getConnectString().isBlank()) {
            throw new InvalidVestaPropertyException("vesta.machine-id.zookeeper.connect-string", zookeeper.getConnectString(),
                    "a ZooKeeper connect string such as zk1:2181,zk2:2181,zk3:2181",
                    "is required when vesta.machine-id.strategy is zookeeper");
        }
        return ZooKeeperProviders.create(zookeeper, timeSource, port);
    }

    /** {@code host:port} when the application has a fixed port, so a restarted node finds its own entry again. */
    private static String defaultOwner(String hostAndPid, String port) {
        if (port == null || port.isBlank() || "0".equals(port.trim()) || port.trim().startsWith("-")) {
            return hostAndPid;
        }
        return hostAndPid.substring(0, hostAndPid.lastIndexOf(':') + 1) + port.trim();
    }

    private static final class ZooKeeperProviders {

        static MachineIdProvider create(VestaProperties.ZooKeeper zookeeper, TimeSource timeSource, String port) {
            try {
                ZooKeeperMachineIdProvider.Builder builder = ZooKeeperMachineIdProvider.builder(zookeeper.getConnectString())
                        .settingPrefix("vesta.machine-id.zookeeper.")
                        .namespace(zookeeper.getNamespace())
                        .owner(zookeeper.getOwner() != null ? zookeeper.getOwner()
                                : defaultOwner(ZooKeeperMachineIdProvider.defaultOwner(), port))
                        .reportInterval(zookeeper.getReportInterval())
                        .maxClockDifference(zookeeper.getMaxClockDifference())
                        .reclaimAfter(zookeeper.getReclaimAfter())
                        .connectionTimeout(zookeeper.getConnectionTimeout())
                        .timeSource(timeSource);
                if (zookeeper.getLease() != null) {
                    builder.lease(zookeeper.getLease());
                }
                if (zookeeper.getCacheFile() != null) {
                    builder.cacheFile(zookeeper.getCacheFile());
                }
                return builder.build();
            } catch (IllegalArgumentException e) {
                throw new InvalidVestaPropertyException("vesta.machine-id.zookeeper", e);
            }
        }
    }
}
