package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.client.RemoteIdServiceBuilderCustomizer;
import io.vesta.autoconfigure.client.VestaClientAutoConfiguration;
import io.vesta.autoconfigure.segment.SegmentIdServiceBuilderCustomizer;
import io.vesta.autoconfigure.segment.VestaSegmentAutoConfiguration;
import io.vesta.client.RemoteIdService;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.segment.SegmentIdService;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A customizer bean per builder, as Boot offers for its own builders: every one applied, in {@code @Order}, after
 * the {@code vesta.*} properties and before the builder checks the result.
 */
class BuilderCustomizerTests {

    /** The order customizers ran in, by name. */
    static final List<String> APPLIED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class))
            .withPropertyValues("vesta.machine-id.value=3", "vesta.time-store.enabled=false", "vesta.sequencer=lock");

    @Test
    void embeddedCustomizersRunInOrderAfterTheProperties() {
        APPLIED.clear();
        runner.withUserConfiguration(EmbeddedCustomizers.class).run(context -> {
            EmbeddedIdService ids = context.getBean(EmbeddedIdService.class);
            assertThat(APPLIED).containsExactly("first", "second");
            assertThat(ids.sequencerStrategy()).as("the second overrides the first, which overrode the property")
                    .isEqualTo(SequencerStrategy.SYNCHRONIZED);
        });
    }

    @Test
    void whatACustomizerSetsIsCheckedLikeAProperty() {
        runner.withBean(EmbeddedIdServiceBuilderCustomizer.class, () -> builder -> builder.version(5))
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                            assertThat(e.setting()).isEqualTo("vesta.version");
                            assertThat(e.value()).isEqualTo(5L);
                        }));
    }

    @Test
    void clientCustomizersRunInOrderAndTheFallbackGetsTheEmbeddedOnes() {
        APPLIED.clear();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaClientAutoConfiguration.class))
                .withUserConfiguration(ClientCustomizers.class, EmbeddedCustomizers.class)
                .withPropertyValues("vesta.mode=client", "vesta.client.servers=http://127.0.0.1:1",
                        "vesta.client.fallback=embedded", "vesta.machine-id.value=7", "vesta.time-store.enabled=false")
                .run(context -> {
                    RemoteIdService client = context.getBean(RemoteIdService.class);
                    assertThat(APPLIED).containsExactly("client-first", "client-second", "first", "second");
                    assertThat(client.prefetch()).isEqualTo(77);
                });
    }

    @Test
    void segmentCustomizersRunInOrder() {
        String table = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                        VestaSegmentAutoConfiguration.class))
                .withUserConfiguration(SegmentCustomizers.class)
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table, "vesta.machine-id.value=3",
                        "vesta.segment.enabled=true", "vesta.segment.table=" + table)
                .run(context -> assertThat(context.getBean(SegmentIdService.class).table())
                        .as("the property, then the first customizer's suffix, then the second's").isEqualTo(table + "_a_b"));
    }

    @Test
    void noCustomizerNoChange() {
        runner.run(context -> assertThat(context.getBean(EmbeddedIdService.class).sequencerStrategy())
                .isEqualTo(SequencerStrategy.LOCK));
    }

    @Configuration(proxyBeanMethods = false)
    static class EmbeddedCustomizers {

        @Bean
        @Order(2)
        EmbeddedIdServiceBuilderCustomizer second() {
            return builder -> {
                APPLIED.add("second");
                builder.sequencer(SequencerStrategy.SYNCHRONIZED);
            };
        }

        @Bean
        @Order(1)
        EmbeddedIdServiceBuilderCustomizer first() {
            return builder -> {
                APPLIED.add("first");
                builder.sequencer(SequencerStrategy.CAS);
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClientCustomizers {

        @Bean
        @Order(20)
        RemoteIdServiceBuilderCustomizer clientSecond() {
            return builder -> {
                APPLIED.add("client-second");
                builder.prefetch(77);
            };
        }

        @Bean
        @Order(10)
        RemoteIdServiceBuilderCustomizer clientFirst() {
            return builder -> {
                APPLIED.add("client-first");
                builder.prefetch(5);
            };
        }
    }

    /** Each appends to the table name the property gave, so the result shows which ran and in what order. */
    @Configuration(proxyBeanMethods = false)
    static class SegmentCustomizers {

        @Bean
        @Order(2)
        SegmentIdServiceBuilderCustomizer appendB(org.springframework.core.env.Environment environment) {
            return builder -> builder.table(environment.getProperty("vesta.segment.table") + "_a_b");
        }

        @Bean
        @Order(1)
        SegmentIdServiceBuilderCustomizer appendA(org.springframework.core.env.Environment environment) {
            return builder -> builder.table(environment.getProperty("vesta.segment.table") + "_a");
        }
    }
}
