package io.vesta.autoconfigure;

import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.time.FileTimestampStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** What a user reads when a bad {@code vesta.*} property stops start-up: Spring Boot's failure report. */
@ExtendWith(OutputCaptureExtension.class)
class VestaStartupFailureTests {

    private static String start(CapturedOutput output, String... properties) {
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties(properties).properties("spring.main.banner-mode=off")
                .run().close());
        assertThat(output).contains("APPLICATION FAILED TO START");
        return output.getOut() + output.getErr();
    }

    @Test
    void missingMachineIdForThePropertyStrategy(CapturedOutput output) {
        assertThat(start(output))
                .contains("Vesta cannot start: the property 'vesta.machine-id.value' is (unset).")
                .contains("vesta.machine-id.value=(unset) is required when vesta.machine-id.strategy is property")
                .contains("Set 'vesta.machine-id.value' to a machine ID in [0, 923] (vesta.machine-id.embedded-range,"
                        + " for gen-method embedded).");
    }

    @Test
    void machineIdOutsideItsRange(CapturedOutput output) {
        assertThat(start(output, "vesta.machine-id.value=950"))
                .contains("Vesta cannot start: the property 'vesta.machine-id.value' is '950'.")
                .contains("is outside the machine-ID range of gen-method embedded")
                .contains("Set 'vesta.machine-id.value' to a machine ID in [0, 923]");
        assertThat(start(output, "vesta.machine-id.value=5", "vesta.gen-method=central-server"))
                .contains("vesta.machine-id.value=5 is outside the machine-ID range of gen-method central-server")
                .contains("a machine ID in [924, 1023] (vesta.machine-id.server-range, for gen-method central-server)");
    }

    /** As Boot's own reports do: the file and line the bad value came from. */
    @Test
    void theReportNamesWhereThePropertyWasSet(CapturedOutput output, @TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("application.properties"),
                "# the node's settings\nvesta.machine-id.value=950\n");
        assertThat(start(output, "spring.config.additional-location=" + file.toUri()))
                .contains("Vesta cannot start: the property 'vesta.machine-id.value' is '950'.")
                .contains("Origin: URL [file:" + file + "] - 2:24");
    }

    @Test
    void aValueWithoutAnOriginGivesTheReportWithoutOne(CapturedOutput output) {
        assertThat(start(output)).contains("the property 'vesta.machine-id.value' is (unset).").doesNotContain("Origin:");
    }

    /** Two processes on one mark (a second server on the same data directory): the report names the file and the fix. */
    @Test
    void aTimestampStoreHeldByAnotherGenerator(CapturedOutput output, @TempDir Path dir) {
        FileTimestampStore held = FileTimestampStore.forGenerator(dir, IdType.MAX_PEAK, 5, GenMethod.EMBEDDED,
                IdCodec.DEFAULT_EPOCH);
        held.open();
        try {
            assertThat(start(output, "vesta.machine-id.value=5", "vesta.time-store.directory=" + dir))
                    .contains("Vesta cannot start: its timestamp store " + held.file() + " is in use by another generator.")
                    .contains("The lock " + held.file() + ".lock is held by another process")
                    .contains("Stop the other process that uses " + dir + ", or give this one a machine ID of its own")
                    .doesNotContain("Application run failed");
        } finally {
            held.close();
        }
    }

    /**
     * A node restarted with a later epoch on the time-store directory of its earlier run: the report names the setting,
     * both epochs and the time that would collide. An earlier epoch starts.
     */
    @Test
    void aLaterEpochThatWouldRepeatTheIdsOfTheEarlierRun(CapturedOutput output, @TempDir Path dir) {
        String[] node = {"vesta.machine-id.value=5", "vesta.time-store.directory=" + dir, "spring.main.banner-mode=off"};
        long first;
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties(node).run()) {
            first = context.getBean(IdService.class).genId();
        }

        assertThat(start(output, node[0], node[1], "vesta.epoch=2025-01-01T00:00:00Z"))
                .contains("Vesta cannot start: the property 'vesta.epoch' is '2025-01-01T00:00:00Z'.")
                .contains("would repeat IDs: file " + dir.resolve("vesta-machine-5-embedded.mark"))
                .contains("Moved from 2014-12-31T16:00:00Z to 2025-01-01T00:00:00Z")
                .contains("Set 'vesta.epoch' to 2014-12-31T16:00:00Z (the epoch those IDs were issued under) or an"
                        + " earlier instant");

        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties(node).properties("vesta.epoch=2014-01-01T00:00:00Z").run()) {
            long id = context.getBean(IdService.class).genId();
            assertThat(context.getBean(IdService.class).expId(id).time())
                    .isGreaterThan(context.getBean(IdService.class).expId(first).time());
        }
    }

    @Test
    void unknownType(CapturedOutput output) {
        assertThat(start(output, "vesta.machine-id.value=5", "vesta.type=max-speed"))
                .contains("Failed to bind properties under 'vesta.type' to io.vesta.IdType")
                .contains("Value: \"max-speed\"")
                .contains("The following values are valid:")
                .contains("MAX_PEAK")
                .contains("MIN_GRANULARITY");
    }

    @Test
    void hostNotInTheIpList(CapturedOutput output) {
        assertThat(start(output, "vesta.machine-id.strategy=ip-list", "vesta.machine-id.ip-list=192.0.2.10,192.0.2.11"))
                .contains("Vesta cannot start: no machine ID is available for this node.")
                .containsPattern("None of this host's addresses \\[.*127\\.0\\.0\\.1.*\\] is in vesta.machine-id.ip-list "
                        + "\\[192\\.0\\.2\\.10, 192\\.0\\.2\\.11\\]")
                .contains("add one of this host's addresses to 'vesta.machine-id.ip-list'");
    }

    @Test
    void malformedIpList(CapturedOutput output) {
        assertThat(start(output, "vesta.machine-id.strategy=ip-list", "vesta.machine-id.ip-list=10.0.0.1,db-host"))
                .contains("the property 'vesta.machine-id.ip-list' is '10.0.0.1,db-host'")
                .contains("entry 'db-host' is not an IPv4 or IPv6 address")
                .contains("Set 'vesta.machine-id.ip-list' to IPv4 or IPv6 literals, each listed once.");
    }

    @Test
    void malformedEpoch(CapturedOutput output) {
        assertThat(start(output, "vesta.machine-id.value=5", "vesta.epoch=2015-13-01"))
                .contains("the property 'vesta.epoch' is '2015-13-01'")
                .contains("vesta.epoch=2015-13-01 is not an ISO-8601 instant")
                .contains("Set 'vesta.epoch' to an ISO-8601 instant with an offset, such as 2015-01-01T00:00:00+08:00");
    }

    @Test
    void epochInTheFuture(CapturedOutput output) {
        assertThat(start(output, "vesta.machine-id.value=5", "vesta.epoch=2999-01-01T00:00:00Z"))
                .contains("the property 'vesta.epoch' is '2999-01-01T00:00:00Z'")
                .contains("vesta.epoch=2999-01-01T00:00:00Z is in the future")
                .contains("not in the future");
    }

    @Test
    void versionAndDurationsOutOfRange(CapturedOutput output) {
        assertThat(start(output, "vesta.machine-id.value=5", "vesta.version=2"))
                .contains("vesta.version=2 is out of range; allowed: a value in [0, 1]")
                .contains("Set 'vesta.version' to a value in [0, 1].");
        assertThat(start(output, "vesta.machine-id.value=5", "vesta.clock.max-backward-wait=5m"))
                .contains("vesta.clock.max-backward-wait=300000ms is out of range; allowed: a duration in [0ms, 60000ms]");
    }

    @Test
    void rangeBoundsOutOfRange(CapturedOutput output) {
        assertThat(start(output, "vesta.machine-id.value=5", "vesta.machine-id.embedded-range.max=2000"))
                .contains("vesta.machine-id.embedded-range.max=2000 is out of range; allowed: a value in [0, 1023]");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }
}
