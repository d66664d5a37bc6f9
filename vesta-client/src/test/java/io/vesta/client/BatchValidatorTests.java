package io.vesta.client;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.machine.MachineIdRange;
import io.vesta.protocol.BatchProtocol;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BatchValidatorTests {

    private static final URI SERVER = URI.create("http://10.0.0.1:8080");
    private static final IdCodec CODEC = new IdCodec(IdCodec.DEFAULT_EPOCH);
    private static final String EPOCH = Long.toString(CODEC.epochMillis());

    private final BatchValidator validator = new BatchValidator(IdType.MAX_PEAK, CODEC, MachineIdRange.SERVER);

    private static long[] serverIds(int count, long version) {
        return EmbeddedIdService.builder().genMethod(GenMethod.CENTRAL_SERVER).machineIdRange(MachineIdRange.SERVER)
                .machineId(930).version(version).build().genIds(count);
    }

    private void assertRefused(long[] ids, int count, String reason) {
        assertThatThrownBy(() -> validator.validate(SERVER, count, EPOCH, BatchProtocol.encode(ids)))
                .isInstanceOf(InvalidBatchException.class).hasMessageContaining(reason);
    }

    @Test
    void aServersBatchIsHandedBackAsItCame() throws Exception {
        long[] ids = serverIds(100, 0);

        assertThat(validator.validate(SERVER, 100, EPOCH, BatchProtocol.encode(ids))).containsExactly(ids);
        assertThat(validator.validate(SERVER, 100, null, BatchProtocol.encode(ids))).as("no epoch header").containsExactly(ids);
    }

    @Test
    void versionOneIdsAreNegativeAndStillIncreasingAsUnsignedBits() throws Exception {
        long[] ids = serverIds(100, 1);
        assertThat(ids[0]).isNegative();

        assertThat(validator.validate(SERVER, 100, EPOCH, BatchProtocol.encode(ids))).containsExactly(ids);
    }

    @Test
    void aServerWithAnotherEpochIsRefused() {
        assertThatThrownBy(() -> validator.validate(SERVER, 10, "1577836800000", BatchProtocol.encode(serverIds(10, 0))))
                .isInstanceOf(InvalidBatchException.class)
                .hasMessage("the server's epoch is 2020-01-01T00:00:00Z but this client's is 2014-12-31T16:00:00Z; both must"
                        + " use the same epoch (vesta.epoch) or decoded times are wrong");
        assertThatThrownBy(() -> validator.validate(SERVER, 10, "soon", BatchProtocol.encode(serverIds(10, 0))))
                .hasMessageStartingWith("the server's epoch is 'soon' but");
    }

    @Test
    void aBodyThatIsNotWholeIdsOrNotAsManyAsAskedForIsRefused() {
        assertThatThrownBy(() -> validator.validate(SERVER, 1, EPOCH, "<html>".getBytes()))
                .hasMessage("the response is not a batch: a batch must be a whole number of 8-byte IDs, was 6 bytes");
        assertRefused(Arrays.copyOf(serverIds(10, 0), 9), 10, "asked for 10 IDs, got 9");
    }

    @Test
    void anIdThatNoServerOfThisClientMayIssueIsRefusedNamingWhatIsWrong() {
        long[] rest = EmbeddedIdService.builder().genMethod(GenMethod.REST).machineId(930).build().genIds(5);
        long[] embedded = EmbeddedIdService.builder().machineId(5).build().genIds(5);
        long[] otherType = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).genMethod(GenMethod.CENTRAL_SERVER)
                .machineId(930).build().genIds(5);
        long[] outOfRange = EmbeddedIdService.builder().genMethod(GenMethod.CENTRAL_SERVER)
                .machineIdRange(MachineIdRange.EMBEDDED).machineId(12).build().genIds(5);

        assertRefused(rest, 5, "has genMethod 2, not 1 (central-server): is http://10.0.0.1:8080 the base URL of a Vesta server?");
        assertRefused(embedded, 5, "has genMethod 0, not 1 (central-server)");
        assertRefused(otherType, 5, "is of type MIN_GRANULARITY but this client is configured for MAX_PEAK");
        assertRefused(outOfRange, 5, "has machine ID 12, outside the server range 924-1023");
    }

    @Test
    void aBatchThatIsNotStrictlyIncreasingIsRefused() {
        long[] ids = serverIds(10, 0);
        ids[5] = ids[4];

        assertRefused(ids, 10, "ID " + ids[5] + " at position 5 does not follow " + ids[4] + ": a batch must be strictly increasing");
    }
}
