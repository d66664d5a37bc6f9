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
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

import javax.sql.DataSource;

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
    @ConditionalOnMissingBean({ MachineIdProvider.class, IdService.class })
    @ConditionalOnProperty(name = "vesta.mode", havingValue = "embedded", matchIfMissing = true)
    MachineIdProvider vestaMachineIdProvider(VestaProperties properties, ObjectProvider<DataSource> dataSource,
            TimeSource timeSource, Environment environment, ResourceLoader resourceLoader) {
        DataSource applicationDataSource = properties.getMachineId().getStrategy() == VestaProperties.MachineIdStrategy.DB
                ? dataSource.getIfUnique() : null;
        return EmbeddedIdServiceFactory.machineIdProvider(properties, applicationDataSource, timeSource,
                environment.getProperty("server.port"), resourceLoader.getClassLoader());
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
    EmbeddedIdService vestaIdService(VestaProperties properties, MachineIdProvider machineIdProvider,
            TimeSource timeSource, ObjectProvider<TimestampStore> timestampStore) {
        return EmbeddedIdServiceFactory.create(properties, machineIdProvider, timeSource, timestampStore.getIfAvailable());
    }
}
