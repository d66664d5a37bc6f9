package io.vesta.machine;

import io.vesta.GenMethod;
import io.vesta.InvalidSettingException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MachineIdAssignment#requireFallbackOutsideBothRanges}: a fallback block must lie outside the range of its own
 * gen-method and that of the other kind of node, and the refusal lists the block starts outside both.
 */
class MachineIdAssignmentFallbackTests {

    private static final MachineIdRange EMBEDDED = new MachineIdRange(0, 915);
    private static final MachineIdRange SERVER = new MachineIdRange(924, 1015);

    private static void check(long first, int blockSize, GenMethod genMethod) {
        boolean embedded = genMethod == GenMethod.EMBEDDED;
        MachineIdAssignment.requireFallbackOutsideBothRanges("vesta.", first, blockSize, genMethod,
                embedded ? EMBEDDED : SERVER, embedded ? SERVER : EMBEDDED);
    }

    @Test
    void aFallbackBetweenOrAboveTheRangesIsAllowedForEitherKindOfNode() {
        assertThatCode(() -> check(916, 1, GenMethod.EMBEDDED)).doesNotThrowAnyException();
        assertThatCode(() -> check(1016, 8, GenMethod.REST)).doesNotThrowAnyException();
        assertThatCode(() -> check(916, 4, GenMethod.CENTRAL_SERVER)).doesNotThrowAnyException();
    }

    @Test
    void anEmbeddedNodesFallbackInsideTheServerRangeIsRefusedListingWhatLiesOutsideBoth() {
        assertThatThrownBy(() -> check(1000, 1, GenMethod.EMBEDDED)).isInstanceOf(InvalidSettingException.class)
                .hasMessage("vesta.machine-id.fallback.value=1000 lies inside the machine-ID range [924, 1015]"
                        + " (vesta.machine-id.server-range) that the store hands out to servers (gen-method"
                        + " central-server or rest), not to this embedded node. Take a fallback ID outside both ranges,"
                        + " narrowing one to leave room; allowed: a machine ID in [0, 1023] outside both [0, 915]"
                        + " (vesta.machine-id.embedded-range) and [924, 1015] (vesta.machine-id.server-range): 916-923"
                        + " or 1016-1023, and each node's own");
    }

    @Test
    void aServersFallbackInsideTheEmbeddedRangeIsRefused() {
        assertThatThrownBy(() -> check(8, 4, GenMethod.REST)).isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("vesta.machine-id.fallback.value=8 lies inside the machine-ID range [0, 915]"
                        + " (vesta.machine-id.embedded-range) that the store hands out to embedded nodes")
                .hasMessageEndingWith("allowed: the first machine ID of a block of 4 aligned from 0"
                        + " (vesta.machine-id.block-size) in [0, 1023] outside both [924, 1015]"
                        + " (vesta.machine-id.server-range) and [0, 915] (vesta.machine-id.embedded-range): 916-920 or"
                        + " 1016-1020, in steps of 4, and each node's own");
    }

    @Test
    void aBlockThatReachesIntoARangeIsRefusedThoughItsFirstIdLiesOutside() {
        // 912-927 with blocks of 16: its first IDs are inside the embedded range, its last inside the server range;
        // with blocks of 16 no block fits between or above the ranges.
        assertThatThrownBy(() -> check(912, 16, GenMethod.EMBEDDED)).isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("lies inside the machine-ID range [0, 915]").hasMessageContaining(": none");
        assertThatThrownBy(() -> check(920, 8, GenMethod.CENTRAL_SERVER)).isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("lies inside the machine-ID range [924, 1015] (vesta.machine-id.server-range)"
                        + " that the store hands out to nodes of gen-method central-server");
    }

    @Test
    void rangesThatTakeEverythingLeaveNoFallback() {
        MachineIdRange all = new MachineIdRange(0, 923);
        assertThatThrownBy(() -> MachineIdAssignment.requireFallbackOutsideBothRanges("vesta.", 924, 1,
                GenMethod.EMBEDDED, all, MachineIdRange.SERVER)).hasMessageContaining("lies inside the machine-ID range"
                + " [924, 1023]").hasMessageContaining(": none, the ranges take every machine ID; narrow one to leave room");
    }

    @Test
    void outOfSpaceAndMisalignedFallbacksAreRefusedWithWhatLiesOutsideBoth() {
        assertThatThrownBy(() -> check(1024, 1, GenMethod.EMBEDDED)).hasMessageStartingWith(
                "vesta.machine-id.fallback.value=1024 is outside the machine-ID space [0, 1023]; allowed: a machine ID"
                + " in [0, 1023] outside both");
        assertThatThrownBy(() -> check(1017, 8, GenMethod.REST)).hasMessageStartingWith(
                "vesta.machine-id.fallback.value=1017 does not start a block of 8 aligned from 0"
                + " (vesta.machine-id.block-size 8)").hasMessageContaining(": 1016, in steps of 8");
    }

    @Test
    void theGeneratorsOwnMessageListsTheBlockStartsOutsideItsOneRange() {
        assertThat(MachineIdAssignment.fallbackAllowed(new MachineIdRange(924, 1015), "vesta.machine-id.server-range", 8,
                "vesta.")).isEqualTo("the first machine ID of a block of 8 aligned from 0 (vesta.machine-id.block-size)"
                        + " in [0, 1023] outside [924, 1015] (vesta.machine-id.server-range): 0-912 or 1016, in steps of 8,"
                        + " and each node's own");
        assertThat(MachineIdAssignment.fallbackAllowed(new MachineIdRange(0, 923), "vesta.machine-id.embedded-range", 1,
                "vesta.")).isEqualTo("a machine ID in [0, 1023] outside [0, 923] (vesta.machine-id.embedded-range):"
                        + " 924-1023, and each node's own");
        assertThat(MachineIdAssignment.fallbackAllowed(new MachineIdRange(0, 1023), "vesta.machine-id.embedded-range", 1,
                "vesta.")).isEqualTo("a machine ID in [0, 1023] outside [0, 1023] (vesta.machine-id.embedded-range):"
                        + " none, the range takes every machine ID; narrow it to leave room, and each node's own");
    }
}
