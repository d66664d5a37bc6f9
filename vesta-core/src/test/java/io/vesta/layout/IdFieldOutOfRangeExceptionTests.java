package io.vesta.layout;

import io.vesta.IdType;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class IdFieldOutOfRangeExceptionTests {

    private final IdCodec codec = new IdCodec(Instant.EPOCH);

    @Test
    void makeIdNamesTheFieldTheValueAndTheLayoutsRange() {
        assertThatExceptionOfType(IdFieldOutOfRangeException.class)
                .isThrownBy(() -> codec.makeId(0, IdType.MIN_GRANULARITY.code(), 0, 5, 1024, 3))
                .withMessage("seq must be in [0, 1023], was 1024")
                .satisfies(e -> {
                    assertThat(e.field()).isEqualTo("seq");
                    assertThat(e.value()).isEqualTo(1024);
                    assertThat(e.min()).isZero();
                    assertThat(e.max()).isEqualTo(1023);
                });
    }

    @Test
    void theFirstBadFieldIsTheOneNamed() {
        assertThatExceptionOfType(IdFieldOutOfRangeException.class)
                .isThrownBy(() -> codec.makeId(2, 0, 9, -1, -1, 5000))
                .satisfies(e -> assertThat(e.field()).isEqualTo("version"));
        assertThatExceptionOfType(IdFieldOutOfRangeException.class)
                .isThrownBy(() -> codec.makeId(0, 0, 0, 0, 0, 1024))
                .satisfies(e -> assertThat(e.field()).isEqualTo("machine"));
    }
}
