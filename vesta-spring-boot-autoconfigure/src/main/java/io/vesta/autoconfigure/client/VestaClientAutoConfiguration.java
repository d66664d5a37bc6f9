package io.vesta.autoconfigure.client;

import io.vesta.IdService;
import io.vesta.autoconfigure.EmbeddedIdServiceBuilderCustomizer;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.client.RemoteIdService;
import io.vesta.machine.MachineIdProvider;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;

/**
 * With {@code vesta.mode=client}, the application's {@link IdService} takes its IDs from central servers
 * ({@code vesta.client.*}). No machine ID is needed unless {@code vesta.client.fallback=embedded}: then the
 * fallback generator takes one from {@code vesta.machine-id.*}, in the embedded range. Ordered before
 * {@link VestaAutoConfiguration}, whose embedded ID service stays out of client mode.
 */
@AutoConfiguration(before = VestaAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration")
@ConditionalOnProperty(name = "vesta.mode", havingValue = "client")
@EnableConfigurationProperties({ VestaProperties.class, VestaClientProperties.class })
public final class VestaClientAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(IdService.class)
    RemoteIdService vestaIdService(VestaProperties properties, VestaClientProperties client,
            ObjectProvider<MachineIdProvider> machineIdProvider, ObjectProvider<TimeSource> timeSource,
            ObjectProvider<TimestampStore> timestampStore, ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<RemoteIdServiceBuilderCustomizer> customizers,
            ObjectProvider<EmbeddedIdServiceBuilderCustomizer> fallbackCustomizers) {
        return RemoteIdServiceFactory.create(properties, client, machineIdProvider::getObject,
                timeSource.getIfUnique(TimeSource::system), timestampStore.getIfAvailable(), sslBundles.getIfAvailable(),
                builder -> customizers.orderedStream().forEach(customizer -> customizer.customize(builder)),
                builder -> fallbackCustomizers.orderedStream().forEach(customizer -> customizer.customize(builder)));
    }
}
