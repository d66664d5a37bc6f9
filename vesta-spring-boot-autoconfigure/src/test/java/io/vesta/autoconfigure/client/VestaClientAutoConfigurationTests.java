package io.vesta.autoconfigure.client;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.client.RemoteIdService;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

@ExtendWith(OutputCaptureExtension.class)
class VestaClientAutoConfigurationTests {

    /** Port 9 (discard) on the loopback: nothing listens, the client's background fetch is refused at once. */
    private static final String NOWHERE = "http://127.0.0.1:9";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaClientAutoConfiguration.class));

    private static void assertInvalid(AssertableApplicationContext context, String setting, Object value, String allowed) {
        assertThat(context).hasFailed();
        assertThat(context.getStartupFailure()).rootCause().isInstanceOfSatisfying(InvalidSettingException.class, e -> {
            assertThat(e.setting()).isEqualTo(setting);
            assertThat(e.value()).isEqualTo(value);
            assertThat(e.allowed()).isEqualTo(allowed);
        });
    }

    @Test
    void clientModeTakesIdsFromServersAndNeedsNoMachineId() {
        runner.withPropertyValues("vesta.mode=client", "vesta.client.servers=" + NOWHERE).run(context -> {
            assertThat(context).hasSingleBean(IdService.class).hasSingleBean(RemoteIdService.class)
                    .doesNotHaveBean(EmbeddedIdService.class).doesNotHaveBean(MachineIdProvider.class);
            RemoteIdService client = context.getBean(RemoteIdService.class);
            assertThat(client.servers()).containsExactly(URI.create(NOWHERE));
            assertThat(client.prefetch()).isEqualTo(1000);
            assertThat(client.maxPrefetch()).isEqualTo(100_000);
            assertThat(client.batchLifetime()).isEqualTo(Duration.ofSeconds(1));
            assertThat(client.batchSize()).isEqualTo(1000);
            assertThat(client.refillThreshold()).isEqualTo(0.1);
            assertThat(client.timeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(client.maxIdAge()).isEqualTo(Duration.ofSeconds(1));
            assertThat(client.fallback()).isEmpty();
        });
    }

    @Test
    void theMaxIdAgeDefaultsToTheTypesAndIsTheConfiguredOneWhenSet() {
        runner.withPropertyValues("vesta.mode=client", "vesta.client.servers=" + NOWHERE, "vesta.type=min-granularity")
                .run(context -> assertThat(context.getBean(RemoteIdService.class).maxIdAge()).isEqualTo(Duration.ofMillis(100)));
        runner.withPropertyValues("vesta.mode=client", "vesta.client.servers=" + NOWHERE, "vesta.client.max-id-age=250ms")
                .run(context -> assertThat(context.getBean(RemoteIdService.class).maxIdAge()).isEqualTo(Duration.ofMillis(250)));
    }

    @Test
    void everyClientPropertyReachesTheClient() {
        runner.withPropertyValues("vesta.mode=client", "vesta.client.servers=http://10.0.0.1:8080, https://ids.example.com/",
                "vesta.client.prefetch=5000", "vesta.client.max-prefetch=20000", "vesta.client.batch-lifetime=250ms",
                "vesta.client.refill-threshold=0.5", "vesta.client.timeout=750ms",
                "vesta.client.backoff.initial=10ms", "vesta.client.backoff.max=1s", "vesta.type=min-granularity",
                "vesta.epoch=2020-01-01T00:00:00Z", "vesta.version=1", "vesta.machine-id.server-range.min=1000").run(context -> {
                    RemoteIdService client = context.getBean(RemoteIdService.class);
                    assertThat(client.servers()).containsExactly(URI.create("http://10.0.0.1:8080"), URI.create("https://ids.example.com/"));
                    assertThat(client.prefetch()).isEqualTo(5000);
                    assertThat(client.maxPrefetch()).isEqualTo(20_000);
                    assertThat(client.batchLifetime()).isEqualTo(Duration.ofMillis(250));
                    assertThat(client.refillThreshold()).isEqualTo(0.5);
                    assertThat(client.timeout()).isEqualTo(Duration.ofMillis(750));
                    assertThat(client.type()).isEqualTo(IdType.MIN_GRANULARITY);
                    assertThat(client.epoch()).isEqualTo(Instant.parse("2020-01-01T00:00:00Z"));
                    assertThat(client.version()).isEqualTo(1);
                    assertThat(client.serverRange()).isEqualTo(new MachineIdRange(1000, 1023));
                });
    }

    @Test
    void theServersAreRequired() {
        runner.withPropertyValues("vesta.mode=client").run(context -> assertInvalid(context, "vesta.client.servers", null,
                "a comma-separated list of the base URLs of the central servers, such as http://10.0.0.1:8080,http://10.0.0.2:8080"));
    }

    @Test
    void aServerThatIsNotAnHttpBaseUrlIsRefused() {
        runner.withPropertyValues("vesta.mode=client", "vesta.client.servers=http://10.0.0.1:8080,10.0.0.2:8080").run(context -> {
            assertInvalid(context, "vesta.client.servers", "http://10.0.0.1:8080,10.0.0.2:8080",
                    "a comma-separated list of the base URLs of the central servers, such as http://10.0.0.1:8080,http://10.0.0.2:8080");
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("has an entry that is not a URL: '10.0.0.2:8080'");
        });
        runner.withPropertyValues("vesta.mode=client", "vesta.client.servers=ftp://10.0.0.1/ids")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("has an entry that is not an http or https base URL with a host and no query: 'ftp://10.0.0.1/ids'"));
        runner.withPropertyValues("vesta.mode=client", "vesta.client.servers=http://a:1,http://a:1")
                .run(context -> assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("lists http://a:1 twice"));
    }

    @Test
    void outOfRangeSettingsAreRefusedNamingTheirRange() {
        String[] client = { "vesta.mode=client", "vesta.client.servers=" + NOWHERE };
        runner.withPropertyValues(client).withPropertyValues("vesta.client.prefetch=0")
                .run(context -> assertInvalid(context, "vesta.client.prefetch", 0L, "a value in [1, 100000]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.prefetch=200000")
                .run(context -> assertInvalid(context, "vesta.client.prefetch", 200000L, "a value in [1, 100000]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.prefetch=5000", "vesta.client.max-prefetch=4000")
                .run(context -> assertInvalid(context, "vesta.client.max-prefetch", 4000L,
                        "a value in [5000, 100000]: not below vesta.client.prefetch (5000)"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.batch-lifetime=0s")
                .run(context -> assertInvalid(context, "vesta.client.batch-lifetime", "0ms", "a duration in [1ms, 3600000ms]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.max-id-age=0ms")
                .run(context -> assertInvalid(context, "vesta.client.max-id-age", "0ms", "a duration in [1ms, 3600000ms]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.max-id-age=2h")
                .run(context -> assertInvalid(context, "vesta.client.max-id-age", "7200000ms", "a duration in [1ms, 3600000ms]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.refill-threshold=1.5")
                .run(context -> assertInvalid(context, "vesta.client.refill-threshold", 1.5, "a share in [0, 1]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.timeout=0s")
                .run(context -> assertInvalid(context, "vesta.client.timeout", "0ms", "a duration in [1ms, 600000ms]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.backoff.initial=2s", "vesta.client.backoff.max=1s")
                .run(context -> assertInvalid(context, "vesta.client.backoff.max", "1000ms", "a duration in [2000ms, 3600000ms]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.client.backoff.initial=0ms")
                .run(context -> assertInvalid(context, "vesta.client.backoff.initial", "0ms", "a duration in [1ms, 3600000ms]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.version=2")
                .run(context -> assertInvalid(context, "vesta.version", 2L, "a value in [0, 1]"));
        runner.withPropertyValues(client).withPropertyValues("vesta.machine-id.server-range.min=1024")
                .run(context -> assertInvalid(context, "vesta.machine-id.server-range.min", 1024L, "a value in [0, 1023]"));
    }

    @Test
    void theEmbeddedFallbackNeedsAMachineIdOfTheEmbeddedRange() {
        String[] client = { "vesta.mode=client", "vesta.client.servers=" + NOWHERE, "vesta.client.fallback=embedded" };
        String allowed = "a machine ID in [0, 923] (vesta.machine-id.embedded-range, for gen-method embedded)";
        runner.withPropertyValues(client).run(context -> assertInvalid(context, "vesta.machine-id.value", null, allowed));
        runner.withPropertyValues(client).withPropertyValues("vesta.machine-id.value=950")
                .run(context -> assertInvalid(context, "vesta.machine-id.value", 950L, allowed));
        runner.withPropertyValues(client).withPropertyValues("vesta.machine-id.value=5", "vesta.gen-method=rest")
                .run(context -> assertThat(context.getStartupFailure()).rootCause()
                        .hasMessageContaining("vesta.gen-method=rest cannot be used with vesta.client.fallback=embedded"));
    }

    @Test
    void theEmbeddedFallbackIssuesUnderTheConfiguredMachineIdAndIsNotTheApplicationsIdService() {
        runner.withPropertyValues("vesta.mode=client", "vesta.client.servers=" + NOWHERE, "vesta.client.fallback=embedded",
                "vesta.machine-id.value=7").run(context -> {
                    RemoteIdService client = context.getBean(RemoteIdService.class);
                    assertThat(client.fallback()).get().isInstanceOfSatisfying(EmbeddedIdService.class, fallback -> {
                        assertThat(fallback.machineId()).isEqualTo(7);
                        assertThat(fallback.genMethod()).isEqualTo(GenMethod.EMBEDDED);
                    });
                    assertThat(context).hasSingleBean(IdService.class).doesNotHaveBean(EmbeddedIdService.class);
                    long id = client.genId();
                    assertThat(client.expId(id).machine()).as("no server listens: the fallback issued it").isEqualTo(7);
                });
    }

    @Test
    void embeddedModeIsUntouched() {
        runner.withPropertyValues("vesta.machine-id.value=5", "vesta.client.servers=" + NOWHERE).run(context -> {
            assertThat(context).doesNotHaveBean(RemoteIdService.class);
            assertThat(context.getBean(EmbeddedIdService.class).machineId()).isEqualTo(5);
        });
    }

    @Test
    void missingServersStopStartUpWithAReportNamingTheProperty(CapturedOutput output) {
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("vesta.mode=client", "spring.main.banner-mode=off").run().close());
        assertThat(output.getOut() + output.getErr())
                .contains("APPLICATION FAILED TO START")
                .contains("Vesta cannot start: the property 'vesta.client.servers' is (unset).")
                .contains("Set 'vesta.client.servers' to a comma-separated list of the base URLs of the central servers,"
                        + " such as http://10.0.0.1:8080,http://10.0.0.2:8080.");
        assertThat(List.of(output.getOut().split("\n"))).noneMatch(line -> line.contains("vesta.machine-id.value"));
    }

    @SpringBootConfiguration
    @ImportAutoConfiguration({ VestaAutoConfiguration.class, VestaClientAutoConfiguration.class })
    static class App {
    }
}
