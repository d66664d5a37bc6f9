package io.vesta.autoconfigure.segment;

import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.segment.SegmentIdService;
import io.vesta.time.TimeSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import javax.sql.DataSource;

/**
 * A {@link SegmentIdService} on the application's {@link DataSource} when {@code vesta.segment.enabled=true}.
 * Ordered after Boot's DataSource auto-configuration (named, not referenced: spring-boot-jdbc is the
 * application's choice, not a dependency of Vesta) so that the condition sees the DataSource it makes. The
 * service shares the Vesta {@link TimeSource} when there is one, and is closed with the context, before the
 * DataSource it depends on.
 */
@AutoConfiguration(after = VestaAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty("vesta.segment.enabled")
@ConditionalOnSingleCandidate(DataSource.class)
@EnableConfigurationProperties(VestaSegmentProperties.class)
public final class VestaSegmentAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    SegmentIdService vestaSegmentIdService(VestaSegmentProperties properties, DataSource dataSource,
            ObjectProvider<TimeSource> timeSource) {
        return SegmentIdServiceFactory.create(properties, dataSource, timeSource.getIfUnique(TimeSource::system));
    }
}
