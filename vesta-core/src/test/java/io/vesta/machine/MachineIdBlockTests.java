package io.vesta.machine;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.InvalidSettingException;
import io.vesta.layout.IdCodec;
import io.vesta.time.FileTimestampStore;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Blocks of machine IDs: which blocks a range holds, and how each fixed-ID strategy hands them out or refuses. */
class MachineIdBlockTests {

    private final ManualTimeSource clock = new ManualTimeSource(Instant.parse("2026-06-01T12:00:00.123Z"));

    @Test
    void blocksAreAlignedFromTheRangeStartAndARemainderIsUnused() {
        MachineIdRange server = MachineIdRange.SERVER;

        assertThat(server.blocks(1)).isEqualTo(100);
        assertThat(server.blocks(8)).isEqualTo(12);
        assertThat(server.blocks(64)).isEqualTo(1);
        assertThat(server.blockStart(11, 8)).isEqualTo(1012);
        assertThat(server.holdsBlock(1012, 8)).isTrue();
        assertThat(server.holdsBlock(1020, 8)).as("1020-1027 leaves the range").isFalse();
        assertThat(server.holdsBlock(928, 8)).as("not aligned from 924").isFalse();
        assertThat(server.blockIndex(935, 8)).isEqualTo(1);
        assertThat(server.order()).isEqualTo(MachineIdRange.Order.DESCENDING);
        assertThat(server.blockStart(server.blockInOrder(0, 8), 8)).as("the top whole block first").isEqualTo(1012);
        assertThat(server.blockStart(server.blockInOrder(11, 8), 8)).isEqualTo(924);
        assertThat(MachineIdRange.EMBEDDED.blockStart(MachineIdRange.EMBEDDED.blockInOrder(0, 8), 8)).isEqualTo(0);
        assertThat(new MachineIdBlock(924, 8)).hasToString("924-931").extracting(MachineIdBlock::last).isEqualTo(931L);
        assertThat(MachineIdBlock.of(7).describe()).isEqualTo("machine ID 7");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 12, 128, -8})
    void aBlockSizeThatIsNoPowerOfTwoUpToSixtyFourIsRefused(int blockSize) {
        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").machineId(0)
                .machineIdBlockSize(blockSize).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("vesta.machine-id.block-size=" + blockSize + " is not a power of two in [1, 64]; allowed: 1, 2,"
                        + " 4, 8, 16, 32 or 64");
    }

    @Test
    void aBlockThatDoesNotFitTheRangeIsRefusedWithTheFigures() {
        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").genMethod(GenMethod.REST)
                .machineIdRange(1000, 1019).machineId(1000).machineIdBlockSize(32).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("vesta.machine-id.block-size=32 does not fit the machine-ID range [1000, 1019] of gen-method"
                        + " rest, which holds 20 machine IDs; allowed: a block size of at most 16 (1, 2, 4, 8, 16, 32 or 64)"
                        + " with this range, or a wider vesta.machine-id.server-range");
    }

    @Test
    void aFixedIdMustStartAnAlignedBlockOfTheRange() {
        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").genMethod(GenMethod.REST)
                .machineId(928).machineIdBlockSize(8).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("vesta.machine-id.value=928 does not start a block of 8 aligned from 924 inside the machine-ID"
                        + " range of gen-method rest; allowed: the first machine ID of one of the 12 blocks of 8 aligned from"
                        + " 924 in [924, 1023]: 924, 932, ..., 1012 (vesta.machine-id.server-range, vesta.machine-id.block-size"
                        + " 8, for gen-method rest)");
        // 1020 is aligned from 924 for blocks of 8, but 1020-1027 leaves the range: the last four IDs hold no block.
        assertThatThrownBy(() -> EmbeddedIdService.builder().genMethod(GenMethod.REST).machineId(1020)
                .machineIdBlockSize(8).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("machine-id.value=1020 does not start a block of 8");

        EmbeddedIdService service = EmbeddedIdService.builder().genMethod(GenMethod.REST).machineId(1012)
                .machineIdBlockSize(8).timeSource(clock).build();
        assertThat(service.machineIdBlock()).isEqualTo(new MachineIdBlock(1012, 8));
        assertThat(service.machineId()).isEqualTo(1012);
        assertThat(service.toString()).contains("machine IDs 1012-1019 (property)");
    }

    @Test
    void anIpListGivesEachPositionABlockAndRefusesALongerListThanTheBlocks() throws Exception {
        IpListMachineIdProvider second = new IpListMachineIdProvider(List.of("10.0.0.1", "10.0.0.2"),
                () -> host("10.0.0.2"), "vesta.machine-id.ip-list");
        EmbeddedIdService service = EmbeddedIdService.builder().machineIdProvider(second).machineIdBlockSize(4)
                .timeSource(clock).build();
        assertThat(service.machineIdBlock()).isEqualTo(new MachineIdBlock(4, 4));

        IpListMachineIdProvider tooLong = new IpListMachineIdProvider(List.of("10.0.0.1", "10.0.0.2", "10.0.0.3"),
                () -> host("10.0.0.1"), "vesta.machine-id.ip-list");
        assertThatThrownBy(() -> tooLong.acquire(MachineIdRange.SERVER, 64))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("vesta.machine-id.ip-list=10.0.0.1,10.0.0.2,10.0.0.3 lists 3 addresses; allowed: at most 1"
                        + " addresses, one per block of 64 machine IDs in [924, 1023] (100 IDs, block size 64)");
    }

    @Test
    void aProviderOfSingleIdsIsRefusedABlockNamingTheSetting() {
        MachineIdProvider single = new MachineIdProvider() {
            @Override
            public long acquire(MachineIdRange range, int blockSize) {
                MachineIdProvider.refuseBlocks(this, blockSize);
                return range.min();
            }

            @Override
            public String describe() {
                return "custom";
            }
        };

        assertThatThrownBy(() -> EmbeddedIdService.builder().settingPrefix("vesta.").machineIdProvider(single)
                .machineIdBlockSize(2).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("vesta.machine-id.block-size=2 is not supported: The machine-ID provider custom hands out single"
                        + " machine IDs, not blocks of 2; allowed: 1 with the machine-ID provider custom");
        assertThat(EmbeddedIdService.builder().machineIdProvider(single).timeSource(clock).build().machineId()).isZero();
    }

    @Test
    void aBlocksMarkIsWrittenForEachOfItsMachineIdsSoASingleIdLaterStartsAfterIt(@TempDir Path directory) throws Exception {
        EmbeddedIdService block = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(8).machineIdBlockSize(4)
                .timeSource(clock).timestampStoreDirectory(directory).build();
        long last = block.genIds(5000)[4999];
        block.close();
        try (var files = Files.list(directory)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".mark")))
                    .containsExactlyInAnyOrder(markFiles(8, 12));
        }

        // Machine ID 10, alone now, with the clock set back to before the block's IDs: it must not issue at or
        // before the block's last ID.
        clock.advance(Duration.ofMillis(-2));
        EmbeddedIdService single = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineId(10)
                .timeSource(clock).timestampStoreDirectory(directory).build();
        long next = single.genId();
        assertThat(single.expId(next).time()).isGreaterThan(block.expId(last).time());
    }

    /** The mark files of machine IDs {@code [from, to)}, by the names single generators give them. */
    private static String[] markFiles(int from, int to) {
        String[] names = new String[to - from];
        for (int id = from; id < to; id++) {
            names[id - from] = FileTimestampStore.forGenerator(Path.of("."), IdType.MIN_GRANULARITY, id, GenMethod.EMBEDDED,
                    IdCodec.DEFAULT_EPOCH).file().getFileName().toString();
        }
        return names;
    }

    private static List<InetAddress> host(String address) {
        try {
            return List.of(InetAddress.getByName(address));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
