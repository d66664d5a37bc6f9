package io.vesta.machine;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DefaultOwnerTests {

    private final String pid = ":" + ProcessHandle.current().pid();

    @Test
    void theDatabaseFormIsHostColonPid() {
        assertThat(DefaultOwner.hostAndPid()).isEqualTo(DefaultOwner.hostName() + pid);
    }

    @Test
    void theZooKeeperFormIsHostAtAddressColonPid() {
        assertThat(DefaultOwner.hostAddressAndPid()).matches("[^/\\s@:]+@[0-9.]+:\\d+").endsWith(pid);
    }

    @Test
    void theZooKeeperFormTakesTheFirstRoutableIpv4AddressAndMakesTheHostNameSafe() throws Exception {
        List<InetAddress> addresses = List.of(InetAddress.getByName("127.0.0.1"), InetAddress.getByName("169.254.1.1"),
                InetAddress.getByName("::1"), InetAddress.getByName("172.17.0.2"), InetAddress.getByName("10.0.0.9"));
        assertThat(DefaultOwner.hostAddressAndPid("odd/name with:parts@x", addresses, 7)).isEqualTo("odd_name_with_parts_x@172.17.0.2:7");
        assertThat(DefaultOwner.hostAddressAndPid(" ", List.of(InetAddress.getByName("127.0.0.1")), 7)).isEqualTo("localhost@127.0.0.1:7");
    }

    /** The starter replaces what follows the last colon with the server port: both forms must end in the pid. */
    @Test
    void bothFormsEndInThePidAfterTheLastColon() {
        for (String owner : List.of(DefaultOwner.hostAndPid(), DefaultOwner.hostAddressAndPid())) {
            assertThat(owner.substring(owner.lastIndexOf(':'))).isEqualTo(pid);
        }
    }
}
