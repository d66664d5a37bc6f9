package io.vesta.machine;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Collection;

/**
 * The owner name a leased provider uses when none is configured: who this node is, unique among live processes
 * and stable across the restarts that keep the same process slot. Every form ends in {@code :pid}, so that a
 * caller that knows a fixed server port (the Spring starter) can put {@code :port} in its place and let a
 * restarted node find its own lease again.
 */
public final class DefaultOwner {

    private DefaultOwner() {
    }

    /** {@code host:pid}: this host's name and this process's ID, as the database leases name their owners. */
    public static String hostAndPid() {
        return hostName() + ":" + ProcessHandle.current().pid();
    }

    /**
     * {@code name@address:pid}: this host's name, its first IPv4 address that is not loopback or link-local, and
     * this process's ID, as the ZooKeeper nodes name their owners. The address alone collides for containers on
     * the bridge networks of different hosts (every first container is 172.17.0.2); the host name of a container
     * is its ID, of a pod its name, and stays across restarts.
     */
    public static String hostAddressAndPid() {
        return hostAddressAndPid(hostName(), IpListMachineIdProvider.localAddresses(), ProcessHandle.current().pid());
    }

    /**
     * {@link #hostAddressAndPid()} from given parts; a host name is made safe for a ZooKeeper node name
     * ({@code /}, white space, control characters, {@code @} and {@code :} become {@code _}).
     */
    public static String hostAddressAndPid(String hostName, Collection<InetAddress> addresses, long pid) {
        String ip = "127.0.0.1";
        for (InetAddress address : addresses) {
            if (address instanceof Inet4Address && !address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                ip = address.getHostAddress();
                break;
            }
        }
        String name = hostName == null || hostName.isBlank() ? "localhost" : hostName.replaceAll("[/\\s\\p{Cntrl}@:]", "_");
        return name + "@" + ip + ":" + pid;
    }

    /** This host's name, or {@code $HOSTNAME}, or {@code localhost} when the name cannot be resolved. */
    public static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return System.getenv().getOrDefault("HOSTNAME", "localhost");
        }
    }
}
