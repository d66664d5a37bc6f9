package io.vesta.machine;

import io.vesta.InvalidSettingException;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.Collection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MachineIdProvidersTests {

    private static Collection<InetAddress> host(String... ips) {
        return java.util.Arrays.stream(ips).map(ip -> {
            try {
                return InetAddress.getByName(ip);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e);
            }
        }).toList();
    }

    @Test
    void propertyIdInsideTheRangeIsUsed() {
        assertThat(new PropertyMachineIdProvider(923).acquire(MachineIdRange.EMBEDDED)).isEqualTo(923);
        assertThat(new PropertyMachineIdProvider(924).acquire(MachineIdRange.SERVER)).isEqualTo(924);
    }

    @Test
    void propertyIdOutsideTheRangeNamesTheSettingTheValueAndTheRange() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new PropertyMachineIdProvider(950, "vesta.machine-id.value").acquire(MachineIdRange.EMBEDDED))
                .withMessage("vesta.machine-id.value=950 is out of range; allowed: a machine ID in [0, 923]");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new PropertyMachineIdProvider(5).acquire(MachineIdRange.SERVER))
                .withMessage("machine-id.value=5 is out of range; allowed: a machine ID in [924, 1023]");
    }

    @Test
    void rangeBoundsAreChecked() {
        assertThatIllegalArgumentException().isThrownBy(() -> new MachineIdRange(-1, 5))
                .withMessage("machineIdRange.min=-1 is out of range; allowed: a value in [0, 1023]");
        assertThatIllegalArgumentException().isThrownBy(() -> new MachineIdRange(10, 5))
                .withMessage("machineIdRange.max=5 is out of range; allowed: a value in [10, 1023]: not below machineIdRange.min (10)");
        assertThatIllegalArgumentException().isThrownBy(() -> new MachineIdRange(0, 1024))
                .withMessage("machineIdRange.max=1024 is out of range; allowed: a value in [0, 1023]: not below machineIdRange.min (0)");
    }

    @Test
    void ipListGivesThePositionOfTheHostsAddressOffsetByTheRangeStart() {
        IpListMachineIdProvider provider = new IpListMachineIdProvider(
                List.of("10.0.0.5", " 10.0.0.6 ", "2001:db8::1"), () -> host("127.0.0.1", "10.0.0.6"), "ipList");

        assertThat(provider.acquire(MachineIdRange.EMBEDDED)).isEqualTo(1);
        assertThat(provider.describe()).isEqualTo("ip-list (10.0.0.6 at position 1)");
        assertThat(provider.acquire(new MachineIdRange(100, 200))).isEqualTo(101);
    }

    @Test
    void ipListMatchesIpv6Addresses() {
        IpListMachineIdProvider provider = new IpListMachineIdProvider(
                List.of("10.0.0.5", "2001:db8::7"), () -> host("2001:db8:0:0:0:0:0:7"), "ipList");

        assertThat(provider.acquire(MachineIdRange.EMBEDDED)).isEqualTo(1);
    }

    @Test
    void ipListGivesServersTheirPositionFromTheTopOfTheServerRangeDown() {
        List<String> list = List.of("10.0.0.5", "10.0.0.6", "10.0.0.7");

        assertThat(new IpListMachineIdProvider(list, () -> host("10.0.0.5"), "ipList").acquire(MachineIdRange.SERVER))
                .as("the first listed server gets the top").isEqualTo(1023);
        assertThat(new IpListMachineIdProvider(list, () -> host("10.0.0.7"), "ipList").acquire(MachineIdRange.SERVER))
                .isEqualTo(1021);
        // Blocks stay aligned from the range start: 924-1023 holds 25 blocks of 4, the top one 1020-1023.
        assertThat(new IpListMachineIdProvider(list, () -> host("10.0.0.6"), "ipList").acquire(MachineIdRange.SERVER, 4))
                .isEqualTo(1016);
        // With blocks of 8 the top whole block is 1012-1019: 1020-1023 is a remainder too short for a block.
        assertThat(new IpListMachineIdProvider(list, () -> host("10.0.0.5"), "ipList").acquire(MachineIdRange.SERVER, 8))
                .isEqualTo(1012);
        // Raising the server range's minimum leaves the servers where they were.
        MachineIdRange narrowed = new MachineIdRange(1000, 1023, MachineIdRange.Order.DESCENDING);
        assertThat(new IpListMachineIdProvider(list, () -> host("10.0.0.7"), "ipList").acquire(narrowed))
                .isEqualTo(1021);
    }

    @Test
    void hostNotInTheListListsBothTheHostsAddressesAndTheList() {
        IpListMachineIdProvider provider = new IpListMachineIdProvider(
                List.of("10.0.0.5", "10.0.0.6"), () -> host("127.0.0.1", "192.168.1.20"), "vesta.machine-id.ip-list");

        assertThatThrownBy(() -> provider.acquire(MachineIdRange.EMBEDDED))
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessage("None of this host's addresses [127.0.0.1, 192.168.1.20] is in vesta.machine-id.ip-list "
                        + "[10.0.0.5, 10.0.0.6]; add one of them to the list");
    }

    @Test
    void aListLongerThanTheRangeIsRejectedOnEveryHost() {
        // A host at position 2 would get machine ID 1024; the host at position 0 is refused too, before any node
        // starts on a list that cannot hold them all.
        for (String address : new String[] {"10.0.0.3", "10.0.0.1"}) {
            IpListMachineIdProvider provider = new IpListMachineIdProvider(
                    List.of("10.0.0.1", "10.0.0.2", "10.0.0.3"), () -> host(address), "ipList");

            assertThatThrownBy(() -> provider.acquire(new MachineIdRange(1022, 1023)))
                    .isInstanceOf(InvalidSettingException.class)
                    .hasMessage("ipList=10.0.0.1,10.0.0.2,10.0.0.3 lists 3 addresses; allowed: at most 2 addresses, one per"
                            + " machine ID in [1022, 1023]");
        }
    }

    @Test
    void malformedAndDuplicateEntriesAreRejectedUpFront() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new IpListMachineIdProvider(List.of("10.0.0.1", "db.example.com"), List::of, "ipList"))
                .withMessage("ipList=10.0.0.1,db.example.com is malformed: entry 'db.example.com' is not an IPv4 or IPv6 address;"
                        + " allowed: IPv4 or IPv6 literals, each listed once");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new IpListMachineIdProvider(List.of("10.0.0.256"), List::of, "ipList"))
                .withMessage("ipList=10.0.0.256 is malformed: entry '10.0.0.256' is not an IPv4 or IPv6 address; allowed: IPv4 or IPv6"
                        + " literals, each listed once");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new IpListMachineIdProvider(List.of("10.0.0.1", "10.0.0.1"), List::of, "ipList"))
                .withMessage("ipList=10.0.0.1,10.0.0.1 is malformed: lists 10.0.0.1 twice; each address must appear once; allowed: IPv4"
                        + " or IPv6 literals, each listed once");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new IpListMachineIdProvider(List.of(), List::of, "ipList"))
                .withMessage("ipList=(unset) is required; allowed: a comma-separated list of the IP addresses of every node");
    }

    @Test
    void addressesEveryHostHasAreRefusedInTheList() {
        for (String[] entry : new String[][] { { "127.0.0.1", "loopback" }, { "::1", "loopback" },
                { "fe80::1", "link-local" }, { "169.254.10.1", "link-local" }, { "0.0.0.0", "wildcard" },
                { "224.0.0.1", "multicast" } }) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new IpListMachineIdProvider(List.of("10.0.0.1", entry[0]), List::of, "vesta.machine-id.ip-list"))
                    .withMessage("vesta.machine-id.ip-list=10.0.0.1," + entry[0] + " is malformed: entry '" + entry[0] + "' is a "
                            + entry[1] + " address, which does not identify one host; list each node's own routable address;"
                            + " allowed: IPv4 or IPv6 literals, each listed once");
        }
    }

    @Test
    void aHostWithTwoListedAddressesIsRefusedNamingBoth() {
        // docker0's 172.17.0.1 is on every Docker host: a list holding it would give that position to all of them.
        IpListMachineIdProvider provider = new IpListMachineIdProvider(List.of("10.0.0.5", "172.17.0.1", "10.0.0.6"),
                () -> host("127.0.0.1", "172.17.0.1", "10.0.0.6"), "vesta.machine-id.ip-list");

        assertThatThrownBy(() -> provider.acquire(MachineIdRange.EMBEDDED))
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageStartingWith("Two of this host's addresses are in vesta.machine-id.ip-list: 172.17.0.1 at position 1"
                        + " and 10.0.0.6 at position 2.");
    }

    @Test
    void localAddressesIncludeLoopback() {
        assertThat(IpListMachineIdProvider.localAddresses()).extracting(InetAddress::isLoopbackAddress).contains(true);
    }
}
