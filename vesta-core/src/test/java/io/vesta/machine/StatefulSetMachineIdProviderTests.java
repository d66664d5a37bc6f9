package io.vesta.machine;

import io.vesta.InvalidSettingException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StatefulSetMachineIdProviderTests {

    private static StatefulSetMachineIdProvider fromHostName(String hostName) {
        return new StatefulSetMachineIdProvider(null, "vesta.machine-id.", () -> hostName, name -> null);
    }

    private static StatefulSetMachineIdProvider fromVariable(String variable, Map<String, String> environment) {
        return new StatefulSetMachineIdProvider(variable, "vesta.machine-id.", () -> "not-a-pod", environment::get);
    }

    @Test
    void theOrdinalOfThePodsNameIsItsPlaceInTheRange() {
        assertThat(fromHostName("ids-0").acquire(MachineIdRange.EMBEDDED)).isZero();
        assertThat(fromHostName("orders-api-7").acquire(MachineIdRange.EMBEDDED)).isEqualTo(7);
        StatefulSetMachineIdProvider server = fromHostName("vesta-server-3");
        assertThat(server.acquire(MachineIdRange.SERVER)).isEqualTo(927);
        assertThat(server.describe()).isEqualTo("kubernetes-statefulset (ordinal 3 from host name vesta-server-3)");
        assertThat(server.lease().heldUntil()).as("held for good, as a property").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void withBlocksTheOrdinalPicksTheBlock() {
        assertThat(fromHostName("ids-2").acquire(MachineIdRange.SERVER, 8)).isEqualTo(924 + 16);
        assertThat(fromHostName("ids-11").acquire(MachineIdRange.SERVER, 8)).isEqualTo(924 + 88);
    }

    @Test
    void anEnvironmentVariableMayHoldTheOrdinal() {
        StatefulSetMachineIdProvider provider = fromVariable("POD_INDEX", Map.of("POD_INDEX", " 12 "));
        assertThat(provider.acquire(MachineIdRange.EMBEDDED)).isEqualTo(12);
        assertThat(provider.describe()).isEqualTo("kubernetes-statefulset (ordinal 12 from POD_INDEX=12)");
    }

    @Test
    void aNameWithoutAnOrdinalIsRefusedNamingItAndTheSetting() {
        for (String name : new String[] { "ids-7f9c8d6b5-x2k4q", "localhost", "ids-", "" }) {
            assertThatThrownBy(() -> fromHostName(name).acquire(MachineIdRange.EMBEDDED))
                    .isInstanceOf(MachineIdUnavailableException.class)
                    .hasMessageContaining("The host name '" + name + "' has no StatefulSet ordinal")
                    .hasMessageContaining("vesta.machine-id.kubernetes.ordinal-variable");
        }
    }

    @Test
    void anUnsetOrMalformedVariableIsRefused() {
        assertThatThrownBy(() -> fromVariable("POD_INDEX", Map.of()).acquire(MachineIdRange.EMBEDDED))
                .isInstanceOf(MachineIdUnavailableException.class).hasMessageContaining("POD_INDEX")
                .hasMessageContaining("is not set");
        assertThatThrownBy(() -> fromVariable("POD_INDEX", Map.of("POD_INDEX", "three")).acquire(MachineIdRange.EMBEDDED))
                .isInstanceOf(MachineIdUnavailableException.class).hasMessageContaining("is 'three', not an ordinal");
    }

    @Test
    void anOrdinalBeyondTheRangeIsRefusedWithTheRangesSize() {
        assertThatThrownBy(() -> fromHostName("vesta-server-100").acquire(MachineIdRange.SERVER))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> {
                    assertThat(e.setting()).isEqualTo("vesta.machine-id.strategy");
                    assertThat(e.allowed()).isEqualTo("at most 100 replicas, ordinals 0 to 99 (range 924-1023, 100 IDs),"
                            + " or a wider range");
                    assertThat(e.getMessage()).contains("gives ordinal 100 (host name vesta-server-100)");
                });
        assertThatThrownBy(() -> fromHostName("ids-12").acquire(MachineIdRange.SERVER, 8))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.allowed())
                        .startsWith("at most 12 replicas, ordinals 0 to 11 (range 924-1023, 100 IDs, blocks of 8)"));
    }
}
