package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.IdService;
import io.vesta.machine.MachineIdProvider;
import io.vesta.time.FileTimestampStore;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * An {@link IdService} made in this process from {@code vesta.*}. Every bean backs off when the application
 * defines its own. In client mode ({@code vesta.mode=client}) the ID service comes from the servers instead and
 * this node needs no machine ID of its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@EnableConfigurationProperties(VestaProperties.class)
public final class VestaAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TimeSource vestaTimeSource() {
        return TimeSource.system();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty("vesta.time-store.file")
    TimestampStore vestaTimestampStore(VestaProperties properties) {
        return new FileTimestampStore(properties.getTimeStore().getFile());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdService.class)
    @ConditionalOnProperty(name = "vesta.mode", havingValue = "embedded", matchIfMissing = true)
    @Conditional(MachineIdConfiguration.NotSegmentsOnlyServer.class)
    EmbeddedIdService vestaIdService(VestaProperties properties, MachineIdProvider machineIdProvider,
            TimeSource timeSource, ObjectProvider<TimestampStore> timestampStore,
            ObjectProvider<EmbeddedIdServiceBuilderCustomizer> customizers) {
        return EmbeddedIdServiceFactory.create(properties, machineIdProvider, timeSource, timestampStore.getIfAvailable(),
                builder -> customizers.orderedStream().forEach(customizer -> customizer.customize(builder)));
    }

    /**
     * The machine-ID provider of {@code vesta.machine-id.strategy} ({@link MachineIdConfiguration}), when this
     * node needs one. This auto-configuration comes after the server's and the client's, so the condition sees
     * what they registered.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(MachineIdConfiguration.Needed.class)
    @Import({ MachineIdConfiguration.Property.class, MachineIdConfiguration.IpList.class, MachineIdConfiguration.Db.class,
            MachineIdConfiguration.ZooKeeper.class, MachineIdConfiguration.Redis.class,
            MachineIdConfiguration.RedisOfTheApplication.class, MachineIdConfiguration.Etcd.class,
            MachineIdConfiguration.KubernetesStatefulSet.class, MachineIdConfiguration.StoreModuleMissing.class })
    static class MachineIdProviderConfiguration {
    }
}
