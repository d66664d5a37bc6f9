package io.vesta.protocol;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The binary batch between a server and the Java client: eight big-endian bytes an ID, nothing else. */
class BatchProtocolTests {

    @Test
    void aBatchIsEightBigEndianBytesAnIdInTheOrderGiven() {
        byte[] body = BatchProtocol.encode(new long[] {1L, 0x0102030405060708L});

        assertThat(body).containsExactly(
                0, 0, 0, 0, 0, 0, 0, 1,
                1, 2, 3, 4, 5, 6, 7, 8);
    }

    @Test
    void decodingGivesBackEveryIdIncludingNegativeOnes() {
        long[] ids = new Random(42).longs(1000).toArray();
        ids[0] = Long.MIN_VALUE;
        ids[1] = -1L;
        ids[2] = Long.MAX_VALUE;

        assertThat(BatchProtocol.decode(BatchProtocol.encode(ids))).containsExactly(ids);
    }

    @Test
    void anEmptyBodyIsAnEmptyBatch() {
        assertThat(BatchProtocol.encode(new long[0])).isEmpty();
        assertThat(BatchProtocol.decode(new byte[0])).isEmpty();
    }

    @Test
    void aBodyThatIsNotAWholeNumberOfIdsIsRefusedNamingItsLength() {
        assertThatThrownBy(() -> BatchProtocol.decode(new byte[13]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole number of 8-byte IDs")
                .hasMessageContaining("13 bytes");
    }
}
