package io.vesta;

import io.vesta.layout.IdCodec;
import io.vesta.test.ManualTimeSource;
import io.vesta.time.FileTimestampStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A real {@link EmbeddedIdService} with its restart marks in files of a time-store directory, stopped and started
 * again with another epoch, type or version: a change that would issue IDs it issued before is refused at start, a
 * change that cannot starts, and its IDs are checked against the earlier ones.
 */
class EmbeddedIdServiceLayoutChangeTests {

    private static final Instant FIRST_RUN = Instant.parse("2026-06-01T12:00:00.123Z");
    private static final Instant EPOCH = IdCodec.DEFAULT_EPOCH;
    private static final Instant LATER_EPOCH = EPOCH.plus(Duration.ofDays(30));
    private static final Instant EARLIER_EPOCH = EPOCH.minus(Duration.ofDays(30));

    @TempDir
    Path directory;

    private final ManualTimeSource clock = new ManualTimeSource(FIRST_RUN);

    private EmbeddedIdServiceBuilder node() {
        return EmbeddedIdService.builder().settingPrefix("vesta.").machineId(5).timeSource(clock)
                .timestampStoreDirectory(directory);
    }

    /** IDs over a few units of the type, the clock moving on; the service is closed after them, as on a clean stop. */
    private Set<Long> run(EmbeddedIdService service, Duration unit) {
        Set<Long> ids = new HashSet<>();
        try (service) {
            for (int i = 0; i < 5; i++) {
                for (long id : service.genIds(100)) {
                    assertThat(ids.add(id)).isTrue();
                }
                clock.advance(unit);
            }
        }
        return ids;
    }

    @Test
    void aLaterEpochThatWouldRepeatIssuedIdsIsRefusedNamingTheSettingBothEpochsAndTheTimeThatCollides() {
        Set<Long> first = run(node().epoch(EPOCH).build(), Duration.ofSeconds(1));
        clock.advance(Duration.ofMinutes(10)); // a short stop; the new epoch is 30 days later

        assertThatThrownBy(() -> node().epoch(LATER_EPOCH).build())
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.setting()).isEqualTo("vesta.epoch");
                    assertThat(e.value()).isEqualTo(LATER_EPOCH);
                    assertThat(e.allowed()).contains(EPOCH.toString());
                })
                .hasMessageContaining("would repeat IDs")
                .hasMessageContaining("Moved from " + EPOCH + " to " + LATER_EPOCH)
                .hasMessageContaining("from now (" + clock.now() + ") until " + FIRST_RUN.plus(Duration.ofDays(30))
                        .plusSeconds(5).truncatedTo(java.time.temporal.ChronoUnit.SECONDS))
                .hasMessageContaining("vesta-machine-5-embedded.mark");

        // The refusal is not over-cautious: the same node without its marks does issue the earlier IDs again, once
        // its clock reaches the instants the new epoch maps onto the old time fields.
        clock.set(FIRST_RUN.plus(Duration.ofDays(30)));
        Set<Long> unchecked = run(EmbeddedIdService.builder().machineId(5).timeSource(clock).epoch(LATER_EPOCH).build(),
                Duration.ofSeconds(1));
        assertThat(unchecked).containsAnyElementsOf(first);
    }

    @Test
    void aLaterEpochStartsOnceTheClockHasPassedTheTimeFieldsTheOldOneUsed() {
        Set<Long> first = run(node().epoch(EPOCH).build(), Duration.ofSeconds(1));
        clock.set(FIRST_RUN.plus(Duration.ofDays(30)).plusSeconds(10));

        Set<Long> second = run(node().epoch(LATER_EPOCH).build(), Duration.ofSeconds(1));

        assertThat(second).doesNotContainAnyElementsOf(first);
    }

    @Test
    void anEarlierEpochStartsAtOnceAndIssuesOnlyNewIds() {
        Set<Long> first = run(node().epoch(EPOCH).build(), Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));

        Set<Long> second = run(node().epoch(EARLIER_EPOCH).build(), Duration.ofSeconds(1));

        assertThat(second).doesNotContainAnyElementsOf(first);
        // Back to the first epoch is not: its time fields now lie below the earlier epoch's, and counting up they
        // would reach the fields the earlier epoch issued in 30 days.
        clock.advance(Duration.ofMinutes(1));
        assertThatThrownBy(() -> node().epoch(EPOCH).build())
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("would repeat IDs");
        Set<Long> third = run(node().epoch(EARLIER_EPOCH.minus(Duration.ofDays(1))).build(), Duration.ofSeconds(1));
        assertThat(third).doesNotContainAnyElementsOf(first).doesNotContainAnyElementsOf(second);
    }

    @Test
    void aNewTypeOrVersionNeverRepeatsIdsWhateverTheEpochButTheOldOneIsRemembered() {
        Set<Long> maxPeak = run(node().epoch(EPOCH).build(), Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));

        // Another type or version never makes an ID with these high bits: even a later epoch is safe.
        Set<Long> minGranularity = run(node().type(IdType.MIN_GRANULARITY).epoch(LATER_EPOCH).build(), Duration.ofMillis(1));
        Set<Long> version1 = run(node().version(1).epoch(LATER_EPOCH).build(), Duration.ofSeconds(1));
        assertThat(minGranularity).doesNotContainAnyElementsOf(maxPeak);
        assertThat(version1).doesNotContainAnyElementsOf(maxPeak).doesNotContainAnyElementsOf(minGranularity);

        // Back to max-peak, version 0 with the later epoch: the mark of the first run still refuses it.
        clock.advance(Duration.ofSeconds(1));
        assertThatThrownBy(() -> node().epoch(LATER_EPOCH).build())
                .isInstanceOfSatisfying(InvalidSettingException.class,
                        e -> assertThat(e.setting()).isEqualTo("vesta.epoch"))
                .hasMessageContaining("version 0, type max-peak, gen-method embedded, epoch " + EPOCH);
    }

    @Test
    void aMarkFileOfTheFormerNamingIsReadWithTheLayoutItsNameGives() throws IOException {
        // Vesta 0.1 named the file by type, machine ID, gen-method and epoch and wrote a bare number into it.
        long oldMark = FIRST_RUN.plusSeconds(3).toEpochMilli();
        Files.writeString(directory.resolve("vesta-max-peak-machine-5-embedded-epoch-" + EPOCH.toEpochMilli() + ".mark"),
                oldMark + "\n", StandardCharsets.US_ASCII);
        clock.advance(Duration.ofMinutes(1));

        assertThatThrownBy(() -> node().epoch(LATER_EPOCH).build())
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("epoch " + EPOCH);
        assertThatThrownBy(() -> node().version(1).epoch(LATER_EPOCH).build())
                .as("the name did not tell versions apart, so the mark holds for both")
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("version 1");

        EmbeddedIdService same = node().epoch(EPOCH).build();
        clock.set(Instant.ofEpochMilli(oldMark - 2000));
        assertThat(same.clockRefusal()).as("the old mark still bounds the same layout").isPresent();
        same.close();
    }

    @Test
    void aBareMarkOfUnknownLayoutIsReadAsTheConfiguredLayoutsAndRewrittenWithIt() throws IOException {
        Path file = directory.resolve("vesta.mark");
        long oldMark = FIRST_RUN.plusSeconds(2).toEpochMilli();
        Files.writeString(file, oldMark + "\n", StandardCharsets.US_ASCII);

        EmbeddedIdService service = EmbeddedIdService.builder().settingPrefix("vesta.").machineId(5).timeSource(clock)
                .timestampStore(new FileTimestampStore(file)).build();
        long id = service.genId();
        service.close();

        assertThat(service.expId(id).time()).isGreaterThanOrEqualTo((oldMark - EPOCH.toEpochMilli()) / 1000);
        assertThat(Files.readString(file)).contains("version=0 type=max-peak gen-method=embedded epoch="
                + EPOCH.toEpochMilli()).doesNotContain("\n" + oldMark + "\n");
    }

    @Test
    void timeRemainingIsTheTimeUntilTheTypesTimeFieldRunsOut() {
        EmbeddedIdService service = node().epoch(EPOCH).build();
        try (service) {
            assertThat(service.timeFieldEnd()).isEqualTo(Instant.parse("2049-01-09T05:37:03.999Z"));
            assertThat(service.timeRemaining()).isEqualTo(Duration.between(FIRST_RUN, service.timeFieldEnd()).plusMillis(1));
        }
        clock.set(Instant.parse("2049-01-09T05:37:03.999Z"));
        assertThat(node().type(IdType.MIN_GRANULARITY).build().timeRemaining())
                .isEqualTo(Duration.between(clock.now(), Instant.parse("2049-11-03T11:53:47.775Z")).plusMillis(1));
    }

    @Test
    void aStartWithUnderAYearLeftLogsAWarningThatSaysWhenAndWhatToChange() {
        Instant end = Instant.parse("2049-11-03T11:53:47.775Z");
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(EmbeddedIdService.class.getName());
        logger.addHandler(handler);
        try {
            clock.set(end.minus(Duration.ofDays(400)));
            node().type(IdType.MIN_GRANULARITY).build().close();
            assertThat(records).noneMatch(r -> r.getMessage().contains("time field runs out"));

            clock.set(end.minus(Duration.ofDays(200)));
            node().type(IdType.MIN_GRANULARITY).build().close();
            assertThat(records).filteredOn(r -> r.getMessage().contains("time field runs out")).singleElement()
                    .satisfies(r -> assertThat(r.getLevel()).isEqualTo(java.util.logging.Level.WARNING))
                    .extracting(LogRecord::getMessage).asString()
                    .contains("The min-granularity time field runs out at " + end + " with vesta.epoch=" + EPOCH
                            + ": 200 days left")
                    .contains("a later vesta.epoch together with vesta.version=1");
        } finally {
            logger.removeHandler(handler);
        }
    }
}
