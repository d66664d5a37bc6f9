package io.vesta.autoconfigure;

import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.jdbc.DataSourceChoice;
import io.vesta.autoconfigure.jdbc.SchemaInitialization;
import io.vesta.autoconfigure.redis.ApplicationRedis;
import io.vesta.autoconfigure.redis.DataRedisConnections;
import io.vesta.autoconfigure.redis.RedisMachineIdSettings;
import io.lettuce.core.resource.ClientResources;
import io.vesta.machine.IpListMachineIdProvider;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.PropertyMachineIdProvider;
import io.vesta.machine.StatefulSetMachineIdProvider;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.machine.etcd.EtcdMachineIdProvider;
import io.vesta.machine.redis.RedisMachineIdProvider;
import io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider;
import io.vesta.time.TimeSource;
import io.etcd.jetcd.Client;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;
import java.util.Locale;

/**
 * The node's {@link MachineIdProvider} from {@code vesta.machine-id.*}: one nested configuration per strategy,
 * each on its own conditions, as Boot's {@code DataSourceConfiguration} has one per connection pool. Imported by
 * {@link VestaAutoConfiguration} when this node needs a machine ID ({@link Needed}), so that one provider serves an
 * embedded node, a central server and a client's embedded fallback alike. A provider of the application's own
 * wins. The db, redis, zookeeper and etcd strategies are read only when their module is on the classpath; without it the
 * strategy fails start-up naming what to add.
 */
abstract class MachineIdConfiguration {

    private static final String STRATEGY = "vesta.machine-id.strategy";
    private static final String DB_PROVIDER = "io.vesta.machine.db.DbMachineIdProvider";
    private static final String ZOOKEEPER_PROVIDER = "io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider";
    private static final String CURATOR = "org.apache.curator.framework.CuratorFramework";
    private static final String REDIS_PROVIDER = "io.vesta.machine.redis.RedisMachineIdProvider";
    private static final String LETTUCE = "io.lettuce.core.RedisClient";
    private static final String ETCD_PROVIDER = "io.vesta.machine.etcd.EtcdMachineIdProvider";
    private static final String JETCD = "io.etcd.jetcd.Client";
    private static final String DATA_REDIS_CONNECTION = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails";

    private MachineIdConfiguration() {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(MachineIdProvider.class)
    @ConditionalOnProperty(name = STRATEGY, havingValue = "property", matchIfMissing = true)
    static class Property {

        @Bean
        MachineIdProvider vestaMachineIdProvider(VestaProperties properties, ObjectProvider<MachineIdGenMethod> server) {
            // Whether the ID lies in the node's range is the engine's check, when the generator acquires it.
            Long value = properties.getMachineId().getValue();
            if (value == null) {
                throw new InvalidSettingException("vesta.machine-id.value", null, rangeText(properties, server),
                        "is required when vesta.machine-id.strategy is property");
            }
            return new PropertyMachineIdProvider(value, "vesta.machine-id.value");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(MachineIdProvider.class)
    @ConditionalOnProperty(name = STRATEGY, havingValue = "ip-list")
    static class IpList {

        @Bean
        MachineIdProvider vestaMachineIdProvider(VestaProperties properties) {
            // The provider checks the list (empty, malformed, longer than the node's range) under the property's name.
            return new IpListMachineIdProvider(properties.getMachineId().getIpList(), IpListMachineIdProvider::localAddresses,
                    "vesta.machine-id.ip-list");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(MachineIdProvider.class)
    @ConditionalOnProperty(name = STRATEGY, havingValue = "kubernetes-statefulset")
    static class KubernetesStatefulSet {

        @Bean
        MachineIdProvider vestaMachineIdProvider(VestaProperties properties) {
            // The provider reads the ordinal and checks it against the node's range when the generator acquires it.
            return new StatefulSetMachineIdProvider(properties.getMachineId().getKubernetes().getOrdinalVariable(),
                    "vesta.machine-id.", StatefulSetMachineIdProvider::localHostName, System::getenv);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = DB_PROVIDER)
    @ConditionalOnMissingBean(MachineIdProvider.class)
    @ConditionalOnProperty(name = STRATEGY, havingValue = "db")
    static class Db {

        /**
         * Declared as what it is, so that Boot's detector of beans that depend on database initialisation finds it
         * without making it: the lease is taken only after spring.sql.init, Flyway or Liquibase ran.
         */
        @Bean
        DbMachineIdProvider vestaMachineIdProvider(VestaProperties properties, ObjectProvider<DataSource> dataSource,
                ObjectProvider<TimeSource> timeSource, Environment environment, ListableBeanFactory beanFactory) {
            DataSource applicationDataSource = dataSource.getIfUnique();
            if (applicationDataSource == null) {
                throw new InvalidSettingException(STRATEGY, "db", "db together with " + DataSourceChoice.ONE_DATA_SOURCE
                        + ", or another strategy", DataSourceChoice.missing(beanFactory));
            }
            DbLeaseProperties db = properties.getMachineId().getDb();
            DbMachineIdProvider.Builder builder = DbMachineIdProvider.builder(applicationDataSource)
                    .settingPrefix("vesta.machine-id.db.")
                    .table(db.getTable())
                    .owner(db.getOwner() != null ? db.getOwner()
                            : ownerAtPort(DbMachineIdProvider.defaultOwner(), environment))
                    .initializeSchema(SchemaInitialization.applies(db.getInitializeSchema(), applicationDataSource))
                    .timeSource(timeSource.getIfUnique(TimeSource::system));
            // Unset: the builder's own default.
            PropertyMapper map = PropertyMapper.get();
            map.from(db.getLease()).to(builder::lease);
            map.from(db.getHeartbeat()).to(builder::heartbeat);
            return builder.build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { ZOOKEEPER_PROVIDER, CURATOR })
    @ConditionalOnMissingBean(MachineIdProvider.class)
    @ConditionalOnProperty(name = STRATEGY, havingValue = "zookeeper")
    static class ZooKeeper {

        /**
         * A client of the provider's own on {@code connect-string}; without one, the application's
         * {@link CuratorFramework}, so that one ZooKeeper setting serves both. The provider does not close the
         * application's client: its lifecycle is the application's.
         */
        @Bean
        MachineIdProvider vestaMachineIdProvider(VestaProperties properties, ObjectProvider<TimeSource> timeSource,
                ObjectProvider<CuratorFramework> curator, Environment environment) {
            ZooKeeperLeaseProperties zookeeper = properties.getMachineId().getZookeeper();
            CuratorFramework applicationClient = zookeeper.getConnectString() == null ? curator.getIfUnique() : null;
            ZooKeeperMachineIdProvider.Builder builder = (applicationClient != null
                    ? ZooKeeperMachineIdProvider.builder(applicationClient)
                    : ZooKeeperMachineIdProvider.builder(zookeeper.getConnectString()))
                    .settingPrefix("vesta.machine-id.zookeeper.")
                    .namespace(zookeeper.getNamespace())
                    .owner(zookeeper.getOwner() != null ? zookeeper.getOwner()
                            : ownerAtPort(ZooKeeperMachineIdProvider.defaultOwner(), environment))
                    .timeSource(timeSource.getIfUnique(TimeSource::system));
            // Unset: the builder's own default.
            PropertyMapper map = PropertyMapper.get();
            map.from(zookeeper.getReportInterval()).to(builder::reportInterval);
            map.from(zookeeper.getMaxClockDifference()).to(builder::maxClockDifference);
            map.from(zookeeper.getReclaimAfter()).to(builder::reclaimAfter);
            map.from(zookeeper.getConnectionTimeout()).to(builder::connectionTimeout);
            map.from(zookeeper.getLease()).to(builder::lease);
            map.from(zookeeper.getCacheFile()).to(builder::cacheFile);
            return builder.build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { REDIS_PROVIDER, LETTUCE })
    @ConditionalOnMissingBean(MachineIdProvider.class)
    @ConditionalOnProperty(name = STRATEGY, havingValue = "redis")
    static class Redis {

        /**
         * A client of the provider's own, on the application's Lettuce resources when it has them (Spring Data Redis
         * registers them), shut down with the provider after its lease is released.
         */
        @Bean
        MachineIdProvider vestaMachineIdProvider(VestaProperties properties, ObjectProvider<TimeSource> timeSource,
                ObjectProvider<ClientResources> clientResources, ObjectProvider<ApplicationRedis> applicationRedis,
                Environment environment) {
            RedisLeaseProperties redis = properties.getMachineId().getRedis();
            RedisMachineIdProvider.Builder builder = RedisMachineIdProvider
                    .builder(RedisMachineIdSettings.uri(redis.getUrl(), applicationRedis.getIfAvailable()))
                    .settingPrefix("vesta.machine-id.redis.")
                    .clientResources(clientResources.getIfUnique())
                    .key(redis.getKey())
                    .owner(redis.getOwner() != null ? redis.getOwner()
                            : ownerAtPort(RedisMachineIdProvider.defaultOwner(), environment))
                    .maxClockSkew(redis.getMaxClockSkew())
                    .timeSource(timeSource.getIfUnique(TimeSource::system));
            // Unset: the builder's own default.
            PropertyMapper map = PropertyMapper.get();
            map.from(redis.getLease()).to(builder::lease);
            map.from(redis.getHeartbeat()).to(builder::heartbeat);
            return builder.build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { ETCD_PROVIDER, JETCD })
    @ConditionalOnMissingBean(MachineIdProvider.class)
    @ConditionalOnProperty(name = STRATEGY, havingValue = "etcd")
    static class Etcd {

        private static final String PREFIX = "vesta.machine-id.etcd.";

        /**
         * A jetcd client of the provider's own on {@code endpoints}, closed with the provider after its lease is
         * released; without endpoints, the application's {@link Client}, which the provider uses but does not close
         * (and then refuses the connection settings, which are that client's own).
         */
        @Bean
        MachineIdProvider vestaMachineIdProvider(VestaProperties properties, ObjectProvider<TimeSource> timeSource,
                ObjectProvider<Client> client, Environment environment) {
            EtcdLeaseProperties etcd = properties.getMachineId().getEtcd();
            EtcdLeaseProperties.Tls tls = etcd.getTls();
            boolean ownClient = etcd.getEndpoints() != null && !etcd.getEndpoints().isEmpty();
            Client applicationClient = ownClient ? null : client.getIfUnique();
            if (!ownClient && applicationClient == null) {
                throw new InvalidSettingException(PREFIX + "endpoints", null, "etcd client URLs such as"
                        + " http://etcd-1:2379,http://etcd-2:2379 (https:// for TLS), or one io.etcd.jetcd.Client bean",
                        "is required with vesta.machine-id.strategy etcd when the application has no jetcd Client");
            }
            EtcdMachineIdProvider.Builder builder = (ownClient ? EtcdMachineIdProvider.builder(etcd.getEndpoints())
                    : EtcdMachineIdProvider.builder(applicationClient))
                    .settingPrefix(PREFIX)
                    .prefix(etcd.getPrefix())
                    .owner(etcd.getOwner() != null ? etcd.getOwner()
                            : ownerAtPort(EtcdMachineIdProvider.defaultOwner(), environment))
                    .timeSource(timeSource.getIfUnique(TimeSource::system));
            // Unset: the builder's own default (or, for the connection, the application's client's own setting).
            PropertyMapper map = PropertyMapper.get();
            map.from(etcd.getLease()).to(builder::lease);
            map.from(etcd.getHeartbeat()).to(builder::heartbeat);
            map.from(etcd.getMaxClockSkew()).to(builder::maxClockSkew);
            map.from(etcd.getConnectTimeout()).to(builder::connectTimeout);
            map.from(etcd.getUser()).to(builder::user);
            map.from(etcd.getPassword()).to(builder::password);
            map.from(etcd.getAuthority()).to(builder::authority);
            map.from(tls.getTrustCertificates()).to(builder::trustCertificates);
            if (tls.getKeyCertificate() != null || tls.getPrivateKey() != null) {
                builder.keyCertificate(tls.getKeyCertificate(), tls.getPrivateKey());
            }
            return builder.build();
        }
    }

    /**
     * The application's Redis connection as Spring Boot describes it, for the redis strategy without a URL of its own;
     * read only when Spring Boot's Redis module is there, and only when the provider is made.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { REDIS_PROVIDER, LETTUCE, DATA_REDIS_CONNECTION })
    @ConditionalOnProperty(name = STRATEGY, havingValue = "redis")
    static class RedisOfTheApplication {

        @Bean
        ApplicationRedis vestaApplicationRedis(ObjectProvider<DataRedisConnectionDetails> details) {
            return () -> {
                DataRedisConnectionDetails connection = details.getIfUnique();
                return connection == null ? null : DataRedisConnections.uri(connection);
            };
        }
    }

    /**
     * A store strategy whose module is not on the classpath: a start-up failure that names the artifact to add, in
     * place of the provider the strategy's configuration above would have made.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(StoreModule.Missing.class)
    @ConditionalOnMissingBean(MachineIdProvider.class)
    static class StoreModuleMissing {

        @Bean
        MachineIdProvider vestaMachineIdProvider(Environment environment) {
            throw StoreModule.of(environment.getProperty(STRATEGY)).missing();
        }
    }

    /** The strategies that lease from a store, each with the module (and the client library it brings) it needs. */
    enum StoreModule {

        DB("db", "io.vesta:vesta-jdbc", null, DB_PROVIDER),
        REDIS("redis", "io.vesta:vesta-redis", "Lettuce", REDIS_PROVIDER, LETTUCE),
        ZOOKEEPER("zookeeper", "io.vesta:vesta-zookeeper", "Apache Curator", ZOOKEEPER_PROVIDER, CURATOR),
        ETCD("etcd", "io.vesta:vesta-etcd", "jetcd", ETCD_PROVIDER, JETCD);

        private final String strategy;
        private final String artifact;
        private final String brings;
        private final String[] classes;

        StoreModule(String strategy, String artifact, String brings, String... classes) {
            this.strategy = strategy;
            this.artifact = artifact;
            this.brings = brings;
            this.classes = classes;
        }

        /** The store of {@code strategy}, or null for a strategy that needs no module. */
        static StoreModule of(String strategy) {
            for (StoreModule module : values()) {
                if (module.strategy.equals(strategy == null ? null : strategy.trim().toLowerCase(Locale.ROOT))) {
                    return module;
                }
            }
            return null;
        }

        boolean presentIn(ClassLoader classLoader) {
            for (String className : classes) {
                if (!ClassUtils.isPresent(className, classLoader)) {
                    return false;
                }
            }
            return true;
        }

        InvalidSettingException missing() {
            return new InvalidSettingException(STRATEGY, strategy, strategy + " with " + artifact + " on the classpath,"
                    + " or another strategy", "needs " + artifact + (brings == null ? "" : " (which brings " + brings
                    + ")") + ", and it is not on the classpath");
        }

        /** {@code vesta.machine-id.strategy} names a store whose module (or client library) is not on the classpath. */
        static final class Missing extends SpringBootCondition {

            @Override
            public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
                StoreModule module = of(context.getEnvironment().getProperty(STRATEGY));
                if (module == null) {
                    return ConditionOutcome.noMatch("vesta.machine-id.strategy needs no store module");
                }
                return module.presentIn(context.getClassLoader())
                        ? ConditionOutcome.noMatch(module.artifact + " is on the classpath")
                        : ConditionOutcome.match(module.artifact + " is missing for strategy " + module.strategy);
            }
        }
    }

    /**
     * When this node issues IDs under a machine ID of its own: an embedded node without an {@link IdService} of
     * the application's own, a central server (which registers a {@link MachineIdGenMethod}), and a client whose
     * fallback is embedded. A client without that fallback takes every ID from the servers and needs none, and so
     * does a server of segments only.
     */
    static final class Needed extends AnyNestedCondition {

        Needed() {
            super(ConfigurationCondition.ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty(name = "vesta.mode", havingValue = "embedded", matchIfMissing = true)
        @ConditionalOnMissingBean(IdService.class)
        @Conditional(NotSegmentsOnlyServer.class)
        static final class EmbeddedNode {
        }

        @ConditionalOnBean(MachineIdGenMethod.class)
        static final class CentralServer {
        }

        @ConditionalOnProperty(name = "vesta.mode", havingValue = "client")
        @ConditionalOnProperty(name = "vesta.client.fallback", havingValue = "embedded")
        static final class ClientWithEmbeddedFallback {
        }
    }

    /**
     * Not a server of segments only ({@code vesta.server.enabled=true} with {@code vesta.server.ids-enabled=false}):
     * such a server issues no IDs of its own, so it has no embedded generator and takes no machine ID.
     */
    static final class NotSegmentsOnlyServer extends NoneNestedConditions {

        NotSegmentsOnlyServer() {
            super(ConfigurationCondition.ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBooleanProperty("vesta.server.enabled")
        @ConditionalOnBooleanProperty(name = "vesta.server.ids-enabled", havingValue = false)
        static final class SegmentsOnlyServer {
        }
    }

    /** The node's machine-ID range as the properties give it, for a message: the engine checks it. */
    private static String rangeText(VestaProperties properties, ObjectProvider<MachineIdGenMethod> server) {
        MachineIdGenMethod serverGenMethod = server.getIfAvailable();
        GenMethod genMethod = serverGenMethod != null ? serverGenMethod.genMethod() : properties.getGenMethod();
        boolean embedded = genMethod == GenMethod.EMBEDDED;
        MachineIdProperties.Range range = embedded ? properties.getMachineId().getEmbeddedRange()
                : properties.getMachineId().getServerRange();
        return "a machine ID in [" + range.getMin() + ", " + range.getMax() + "] (vesta.machine-id."
                + (embedded ? "embedded-range" : "server-range") + ", for gen-method "
                + genMethod.name().toLowerCase(Locale.ROOT).replace('_', '-') + ")";
    }

    /**
     * {@code host:port} in place of the builder's {@code host:pid} when the application has a fixed port, so that a
     * restarted node finds its own lease again.
     */
    private static String ownerAtPort(String hostAndPid, Environment environment) {
        String port = environment.getProperty("server.port");
        if (port == null || port.isBlank() || "0".equals(port.trim()) || port.trim().startsWith("-")) {
            return hostAndPid;
        }
        return hostAndPid.substring(0, hostAndPid.lastIndexOf(':') + 1) + port.trim();
    }
}
