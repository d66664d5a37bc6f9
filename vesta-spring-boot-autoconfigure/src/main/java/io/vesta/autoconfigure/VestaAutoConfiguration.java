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

/**
 * An {@link IdService} made in this process from {@code vesta.*}. Every bean backs off when the application
 * defines its own.
 */
@AutoConfiguration
@EnableConfigurationProperties(VestaProperties.class)
public final class VestaAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TimeSource vestaTimeSource() {
        return TimeSource.system();
    }

    @Bean
    @ConditionalOnMissingBean({ MachineIdProvider.class, IdService.class })
    MachineIdProvider vestaMachineIdProvider(VestaProperties properties) {
        return EmbeddedIdServiceFactory.machineIdProvider(properties);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty("vesta.time-store.file")
    TimestampStore vestaTimestampStore(VestaProperties properties) {
        return new FileTimestampStore(properties.getTimeStore().getFile());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdService.class)
    EmbeddedIdService vestaIdService(VestaProperties properties, MachineIdProvider machineIdProvider,
            TimeSource timeSource, ObjectProvider<TimestampStore> timestampStore) {
        return EmbeddedIdServiceFactory.create(properties, machineIdProvider, timeSource, timestampStore.getIfAvailable());
    }
}
