package io.vesta.layout;

import io.vesta.Id;
import io.vesta.IdType;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

/** IDs written out bit by bit from DESIGN §2, so the layout is checked against the spec, not against itself. */
class IdLayoutVectorsTests {

    private final IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);

    @Test
    void defaultEpochIsVestasOwn() {
        assertThat(IdCodec.DEFAULT_EPOCH)
                .isEqualTo(OffsetDateTime.of(2015, 1, 1, 0, 0, 0, 0, ZoneOffset.ofHours(8)).toInstant());
    }

    @Test
    void maxPeakVersionZero() {
        // version 0 | type 0 | genMethod 01 | time (30 bits) = 5 | seq (20 bits) = 3 | machine (10 bits) = 7
        long id = Long.parseUnsignedLong("0" + "0" + "01"
                + "000000000000000000000000000101"
                + "00000000000000000011"
                + "0000000111", 2);

        assertThat(id).isEqualTo((1L << 60) | (5L << 30) | (3L << 10) | 7);
        assertThat(codec.expId(id)).isEqualTo(new Id(7, 3, 5, 1, 0, 0));
        assertThat(codec.makeId(0, 0, 1, 5, 3, 7)).isEqualTo(id);
        assertThat(codec.transTime(IdType.MAX_PEAK, 5)).isEqualTo(Instant.parse("2014-12-31T16:00:05Z"));
    }

    @Test
    void minGranularityVersionZero() {
        // version 0 | type 1 | genMethod 10 | time (40 bits) = 1000 | seq (10 bits) = 1023 | machine = 923
        long id = Long.parseUnsignedLong("0" + "1" + "10"
                + "0000000000000000000000000000001111101000"
                + "1111111111"
                + "1110011011", 2);

        assertThat(codec.expId(id)).isEqualTo(new Id(923, 1023, 1000, 2, 1, 0));
        assertThat(codec.makeId(0, 1, 2, 1000, 1023, 923)).isEqualTo(id);
        assertThat(codec.transTime(IdType.MIN_GRANULARITY, 1000)).isEqualTo(Instant.parse("2014-12-31T16:00:01Z"));
    }

    @Test
    void maxPeakVersionOneIsNegativeAndDecodes() {
        // version 1 | type 0 | genMethod 11 | time all ones | seq all ones | machine 1023
        long id = Long.parseUnsignedLong("1" + "0" + "11"
                + "111111111111111111111111111111"
                + "11111111111111111111"
                + "1111111111", 2);

        assertThat(id).isNegative();
        assertThat(codec.expId(id)).isEqualTo(new Id(1023, (1L << 20) - 1, (1L << 30) - 1, 3, 0, 1));
        assertThat(codec.makeId(1, 0, 3, (1L << 30) - 1, (1L << 20) - 1, 1023)).isEqualTo(id);
    }

    @Test
    void minGranularityVersionOneIsNegativeAndDecodes() {
        // version 1 | type 1 | genMethod 00 | time = 2^39 (top bit only) | seq = 1 | machine = 0
        long id = Long.parseUnsignedLong("1" + "1" + "00"
                + "1000000000000000000000000000000000000000"
                + "0000000001"
                + "0000000000", 2);

        assertThat(id).isEqualTo(0xC800_0000_0000_0400L);
        assertThat(codec.expId(id)).isEqualTo(new Id(0, 1, 1L << 39, 0, 1, 1));
        assertThat(codec.expId(id).idType()).isEqualTo(IdType.MIN_GRANULARITY);
    }

    @Test
    void ceilingsAreTheLayoutsCapacity() {
        assertThat(IdLayout.MAX_PEAK.ceilingPerSecond()).isEqualTo(1L << 20);
        assertThat(IdLayout.MIN_GRANULARITY.ceilingPerSecond()).isEqualTo(1_024_000);
    }
}
