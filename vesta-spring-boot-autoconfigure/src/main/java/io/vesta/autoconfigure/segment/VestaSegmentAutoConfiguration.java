package io.vesta.autoconfigure.segment;

import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.jdbc.DataSourceChoice;
import io.vesta.autoconfigure.jdbc.SchemaInitialization;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentIdServiceBuilder;
import io.vesta.segment.SegmentSchema;
import io.vesta.time.TimeSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.Locale;

/**
 * A {@link SegmentIdService} on the application's {@link DataSource} when {@code vesta.segment.enabled=true}, or
 * a start-up failure that says what is missing when there is no one DataSource to use. Ordered after Boot's
 * DataSource auto-configuration (named, not referenced: spring-boot-jdbc is the application's choice, not a
 * dependency of Vesta) so that the conditions see the DataSource it makes. The service shares the Vesta
 * {@link TimeSource} when there is one, and is closed with the context, before the DataSource it depends on.
 */
@AutoConfiguration(after = VestaAutoConfiguration.class,
        afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty("vesta.segment.enabled")
@EnableConfigurationProperties(VestaSegmentProperties.class)
public final class VestaSegmentAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnSingleCandidate(DataSource.class)
    static class OnDataSource {

        /** The service; its builder checks every {@code vesta.segment.*} setting and names a bad one in full. */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        SegmentIdService vestaSegmentIdService(VestaSegmentProperties properties, DataSource dataSource,
                ObjectProvider<TimeSource> timeSource, ObjectProvider<SegmentIdServiceBuilderCustomizer> customizers) {
            SegmentIdServiceBuilder builder = SegmentIdService.builder()
                    .settingPrefix("vesta.segment.")
                    .dataSource(dataSource)
                    .timeSource(timeSource.getIfUnique(TimeSource::system))
                    .table(properties.getTable())
                    .refillThreshold(properties.getRefillThreshold())
                    .targetDuration(properties.getTargetDuration())
                    .maxStep(properties.getMaxStep())
                    .autoCreate(properties.isAutoCreate())
                    .autoCreateTags(properties.getAutoCreateTags())
                    .idleTimeout(properties.getIdleTimeout())
                    .maxBufferedTags(properties.getMaxBufferedTags())
                    .defaultStep(properties.getDefaultStep())
                    .retryInterval(properties.getRetryInterval())
                    .loaderThreads(properties.getLoaderThreads())
                    .timeout(properties.getTimeout());
            properties.getDatedTags().forEach((tag, dated) -> builder.datedTag(tag, dated.getPeriod(),
                    zone("vesta.segment.dated-tags." + tag + ".zone", dated.getZone()), dated.getWidth(), dated.getStart()));
            customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
            SegmentIdService service = builder.build();
            if (SchemaInitialization.applies(properties.getInitializeSchema(), dataSource)) {
                try {
                    SegmentSchema.initialize(dataSource, properties.getTable());
                } catch (RuntimeException e) {
                    service.close();
                    throw e instanceof IllegalArgumentException unknownDatabase
                            ? noScript(properties.getInitializeSchema(), unknownDatabase) : e;
                }
            }
            return service;
        }
    }

    /**
     * Segment mode with no DataSource to use (none, or several and none primary): without this, the application
     * would start with no segments and answer 404 on /vesta/segment/**.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(NoSingleDataSource.class)
    static class WithoutDataSource {

        @Bean
        @ConditionalOnMissingBean
        SegmentIdService vestaSegmentIdService(ListableBeanFactory beanFactory) {
            throw new InvalidSettingException("vesta.segment.enabled", true, "false, or true with "
                    + DataSourceChoice.ONE_DATA_SOURCE, DataSourceChoice.missing(beanFactory));
        }
    }

    static final class NoSingleDataSource extends NoneNestedConditions {

        NoSingleDataSource() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnSingleCandidate(DataSource.class)
        static final class SingleDataSource {
        }
    }

    /** A dated tag's zone: a time-zone ID, or null (which the builder names as required). */
    private static ZoneId zone(String setting, String zone) {
        if (zone == null) {
            return null;
        }
        try {
            return ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new InvalidSettingException(setting, zone, "a time-zone ID such as UTC, Europe/Paris or +09:00",
                    "is not a time zone: " + e.getMessage());
        }
    }

    /** The builder accepted the table name, so initialize refused the database: Vesta has no script for it. */
    private static InvalidSettingException noScript(DatabaseInitializationMode mode, IllegalArgumentException e) {
        InvalidSettingException invalid = new InvalidSettingException("vesta.segment.initialize-schema",
                mode.name().toLowerCase(Locale.ROOT),
                "never, with the table created by hand or by migrations from " + SegmentSchema.POSTGRESQL + ", "
                        + SegmentSchema.MYSQL + " or " + SegmentSchema.H2,
                "cannot be used here: " + e.getMessage());
        invalid.initCause(e);
        return invalid;
    }
}
