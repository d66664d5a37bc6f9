package io.vesta.machine.zookeeper;

import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdRange.Order;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The namespace's layout: its record both ways, the one mapping from sequence to machine ID, and its refusals. */
class ZooKeeperLayoutTests {

    private static final MachineIdRange SERVER = MachineIdRange.SERVER;

    @Test
    void anAscendingLayoutIsRecordedAsBeforeOrdersExisted() {
        ZooKeeperNode.Layout single = ZooKeeperNode.Layout.of(MachineIdRange.EMBEDDED, 1);
        ZooKeeperNode.Layout blocks = ZooKeeperNode.Layout.of(MachineIdRange.EMBEDDED, 8);

        assertThat(text(single.encode())).isEqualTo("rangeStart=0\n");
        assertThat(text(blocks.encode())).isEqualTo("rangeStart=0\nblockSize=8\n");
        assertThat(decode("rangeStart=0\n")).isEqualTo(single).extracting(ZooKeeperNode.Layout::order)
                .isEqualTo(Order.ASCENDING);
        assertThat(decode("rangeStart=0\nblockSize=8\n")).isEqualTo(blocks);
        assertThat(blocks.firstOf(0, MachineIdRange.EMBEDDED)).isEqualTo(0);
        assertThat(blocks.firstOf(114, MachineIdRange.EMBEDDED)).isEqualTo(912);
        assertThat(blocks.firstOf(115, MachineIdRange.EMBEDDED)).as("past 0-923's 115 blocks of 8").isEqualTo(-1);
    }

    @Test
    void aDescendingLayoutRecordsItsOrderAndTopBlockAndNoRangeStart() {
        ZooKeeperNode.Layout single = ZooKeeperNode.Layout.of(SERVER, 1);
        ZooKeeperNode.Layout blocks = ZooKeeperNode.Layout.of(SERVER, 8);

        assertThat(text(single.encode())).isEqualTo("order=descending\ntopBlockStart=1023\n");
        assertThat(text(blocks.encode())).isEqualTo("order=descending\ntopBlockStart=1012\nblockSize=8\n");
        assertThat(decode("order=descending\ntopBlockStart=1023\n")).isEqualTo(single);
        assertThat(decode("order=descending\ntopBlockStart=1012\nblockSize=8\n")).isEqualTo(blocks)
                .extracting(ZooKeeperNode.Layout::order).isEqualTo(Order.DESCENDING);
        assertThat(single.firstOf(0, SERVER)).isEqualTo(1023);
        assertThat(single.firstOf(99, SERVER)).isEqualTo(924);
        assertThat(single.firstOf(100, SERVER)).isEqualTo(-1);
        // 924-1023 holds 12 blocks of 8 aligned from 924; 1020-1023 is too short for one.
        assertThat(blocks.firstOf(0, SERVER)).isEqualTo(1012);
        assertThat(blocks.firstOf(11, SERVER)).isEqualTo(924);
        assertThat(blocks.firstOf(12, SERVER)).isEqualTo(-1);
        // The lease admin maps by everything the layout reaches, whatever range its node has.
        assertThat(blocks.reach()).isEqualTo(new MachineIdRange(4, 1019, Order.DESCENDING));
        assertThat(blocks.firstOf(12, blocks.reach())).isEqualTo(916);
    }

    /**
     * A node of the version before orders reads the namespace node with {@code Long.parseLong(fields
     * .getProperty("rangeStart").strip())} and registers only when the record is byte for byte its own
     * ({@code rangeStart=...}): a descending record fails both, so it is refused, never read as ascending.
     */
    @Test
    void aNodeOfTheVersionBeforeOrdersCannotReadADescendingLayout() {
        byte[] descending = ZooKeeperNode.Layout.of(SERVER, 1).encode();
        Properties fields = ZooKeeperNode.decode(descending);

        assertThatThrownBy(() -> Long.parseLong(fields.getProperty("rangeStart").strip()))
                .isInstanceOf(NullPointerException.class);
        assertThat(text(descending)).doesNotStartWith("rangeStart=");
    }

    @Test
    void aRecordThisVersionDoesNotKnowIsRefused() {
        for (String recorded : new String[] {"order=descending\nrangeStart=924\n", "order=sideways\ntopBlockStart=9\n",
                "order=descending\n", "rangeStart=x\n", "rangeStart=0\nblockSize=3\n", "topBlockStart=1023\n",
                "order=descending\ntopBlockStart=1020\nblockSize=8\n"}) {
            assertThatIllegalStateException().as(recorded).isThrownBy(() -> decode(recorded))
                    .withMessageStartingWith("The namespace node /vesta/ns does not record a layout this version knows");
        }
    }

    @Test
    void aNodeWhoseRangeOrBlockSizeDisagreesWithTheRecordIsNamedWithBothValues() {
        ZooKeeperNode.Layout down = ZooKeeperNode.Layout.of(SERVER, 4);
        ZooKeeperNode.Layout up = ZooKeeperNode.Layout.of(MachineIdRange.EMBEDDED, 4);

        assertThat(down.mismatch(SERVER, 4)).isNull();
        assertThat(down.mismatch(new MachineIdRange(0, 1023, Order.DESCENDING), 4)).as("the same top block").isNull();
        assertThat(down.mismatch(SERVER.inOrder(Order.ASCENDING), 4)).isEqualTo("the range's order: recorded"
                + " descending (from the top whole block down), configured ascending (from the range start up)");
        assertThat(down.mismatch(new MachineIdRange(926, 1023, Order.DESCENDING), 4)).endsWith("recorded 1020,"
                + " configured 1018");
        assertThat(down.mismatch(SERVER, 8)).isEqualTo("the block size: recorded 4, configured 8");
        assertThat(up.mismatch(MachineIdRange.EMBEDDED, 4)).isNull();
        assertThat(up.mismatch(new MachineIdRange(0, 923, Order.DESCENDING), 4))
                .as("a namespace recorded before orders keeps counting up").isNull();
        assertThat(up.mismatch(SERVER, 4)).isEqualTo("the range start (min): recorded 0, configured 924");
    }

    private static ZooKeeperNode.Layout decode(String recorded) {
        return ZooKeeperNode.Layout.decode(recorded.getBytes(StandardCharsets.UTF_8), "/vesta/ns");
    }

    private static String text(byte[] recorded) {
        return new String(recorded, StandardCharsets.UTF_8);
    }
}
