package io.vesta.machine;

import io.vesta.InvalidSettingException;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * A node's machine ID is the position of one of its own addresses in a configured list, counted in the range's
 * {@link MachineIdRange#order() order}: from the range start up for embedded nodes, from the top whole block down for
 * servers. With the embedded range 0-923 and list {@code 10.0.0.5,10.0.0.6}, host 10.0.0.6 is machine 1 (with blocks
 * of 4, it holds machine IDs 4-7); with the server range 924-1023 the same list makes 10.0.0.5 machine 1023 and
 * 10.0.0.6 machine 1022 (with blocks of 4 aligned from 924, 1020-1023 and 1016-1019). Every node gets the same list,
 * so the IDs follow from the deployment without any coordination.
 *
 * <p>An address only identifies a host if no other host has it. Loopback, link-local, wildcard and multicast
 * addresses are on every host (or on none), so the list refuses them and a host's own such addresses never
 * match. A host that finds two of its addresses in the list (docker0's {@code 172.17.0.1}, shared by every
 * Docker host, next to its own) could take either position, and so could another host: that is an error naming
 * both, never a silent choice.
 */
public final class IpListMachineIdProvider implements MachineIdProvider {

    /** The name of the setting, without a prefix, when none is given. */
    public static final String SETTING = "machine-id.ip-list";

    /** What a list may hold, as {@link InvalidSettingException#allowed()} says it. */
    private static final String ALLOWED = "IPv4 or IPv6 literals, each listed once";

    private final List<InetAddress> list;
    private final Supplier<Collection<InetAddress>> hostAddresses;
    private final String name;
    private final String value;
    private volatile String description = "ip-list";

    /**
     * @param ipList IP literals (IPv4 or IPv6), no host names: a list must not depend on DNS answers
     * @param hostAddresses this host's addresses; {@link #localAddresses()} reads the network interfaces
     * @param name the list's full setting name where the user typed it ({@code "vesta.machine-id.ip-list"}), used in
     *        errors
     * @throws InvalidSettingException if the list is empty, holds something other than an IP literal, an address
     *         every host has (loopback, link-local, wildcard, multicast) or an address twice
     */
    public IpListMachineIdProvider(List<String> ipList, Supplier<Collection<InetAddress>> hostAddresses, String name) {
        this.name = name;
        this.hostAddresses = hostAddresses;
        this.value = ipList == null ? null : String.join(",", ipList);
        this.list = parse(ipList);
    }

    /** The list under the setting name {@value #SETTING}, matched against this host's network interfaces. */
    public IpListMachineIdProvider(List<String> ipList) {
        this(ipList, IpListMachineIdProvider::localAddresses, SETTING);
    }

    private List<InetAddress> parse(List<String> ipList) {
        if (ipList == null || ipList.isEmpty()) {
            throw new InvalidSettingException(name, null, "a comma-separated list of the IP addresses of every node",
                    "is required");
        }
        List<InetAddress> parsed = new ArrayList<>(ipList.size());
        Set<InetAddress> seen = new LinkedHashSet<>();
        for (String entry : ipList) {
            String ip = entry == null ? "" : entry.trim();
            if (!isIpLiteral(ip)) {
                throw malformed("entry '" + ip + "' is not an IPv4 or IPv6 address", null);
            }
            InetAddress address;
            try {
                address = InetAddress.getByName(ip); // a literal: no lookup happens
            } catch (UnknownHostException e) {
                throw malformed("entry '" + ip + "' is not an IP address", e);
            }
            String shared = sharedKind(address);
            if (shared != null) {
                throw malformed("entry '" + ip + "' is a " + shared + " address, which does not identify one host;"
                        + " list each node's own routable address", null);
            }
            if (!seen.add(address)) {
                throw malformed("lists " + ip + " twice; each address must appear once", null);
            }
            parsed.add(address);
        }
        return List.copyOf(parsed);
    }

    private InvalidSettingException malformed(String problem, Exception cause) {
        InvalidSettingException e = new InvalidSettingException(name, value, ALLOWED, "is malformed: " + problem);
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    private static boolean isIpLiteral(String ip) {
        if (ip.isEmpty()) {
            return false;
        }
        if (ip.indexOf(':') >= 0) {
            int scope = ip.indexOf('%');
            String address = scope >= 0 ? ip.substring(0, scope) : ip;
            return address.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
        }
        String[] parts = ip.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String part : parts) {
            if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit)
                    || Integer.parseInt(part) > 255) {
                return false;
            }
        }
        return true;
    }

    /**
     * The block at this host's position: position {@code p} holds the {@code p}-th block in the range's order
     * ({@link MachineIdRange#blockInOrder}), {@code [min + p * blockSize, min + (p + 1) * blockSize)} when ascending.
     * @throws InvalidSettingException if the list holds more addresses than {@code range} has blocks, on every host
     *         alike
     */
    @Override
    public long acquire(MachineIdRange range, int blockSize) {
        long blocks = range.blocks(blockSize);
        if (list.size() > blocks) {
            throw new InvalidSettingException(name, value, "at most " + blocks + " addresses, one per " + (blockSize == 1
                    ? "machine ID in [" + range.min() + ", " + range.max() + "]"
                    : "block of " + blockSize + " machine IDs in [" + range.min() + ", " + range.max() + "] (" + range.size()
                            + " IDs, block size " + blockSize + ")"), "lists " + list.size() + " addresses");
        }
        Collection<InetAddress> own = hostAddresses.get();
        int position = -1;
        for (int i = 0; i < list.size(); i++) {
            InetAddress listed = list.get(i);
            if (own.contains(listed) && sharedKind(listed) == null) {
                if (position >= 0) {
                    throw new MachineIdUnavailableException("Two of this host's addresses are in " + name + ": "
                            + list.get(position).getHostAddress() + " at position " + position + " and "
                            + listed.getHostAddress() + " at position " + i + ". An address another host may also have"
                            + " (a Docker bridge such as 172.17.0.1) cannot identify a node; remove it from the list");
                }
                position = i;
            }
        }
        if (position < 0) {
            throw new MachineIdUnavailableException("None of this host's addresses " + format(own) + " is in "
                    + name + " " + format(list) + "; add one of them to the list");
        }
        long machineId = range.blockStart(range.blockInOrder(position, blockSize), blockSize);
        description = "ip-list (" + list.get(position).getHostAddress() + " at position " + position + ")";
        return machineId;
    }

    /** Why an address cannot identify one host, or null if it can. */
    private static String sharedKind(InetAddress address) {
        if (address.isLoopbackAddress()) {
            return "loopback";
        }
        if (address.isLinkLocalAddress()) {
            return "link-local";
        }
        if (address.isAnyLocalAddress()) {
            return "wildcard";
        }
        if (address.isMulticastAddress()) {
            return "multicast";
        }
        return null;
    }

    @Override
    public String describe() {
        return description;
    }

    private static String format(Collection<InetAddress> addresses) {
        return addresses.stream().map(InetAddress::getHostAddress).collect(Collectors.joining(", ", "[", "]"));
    }

    /** Every address of every network interface of this host, loopback included. */
    public static Collection<InetAddress> localAddresses() {
        try {
            Set<InetAddress> addresses = new LinkedHashSet<>();
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                addresses.addAll(Collections.list(nic.getInetAddresses()));
            }
            return addresses;
        } catch (SocketException e) {
            throw new MachineIdUnavailableException("Cannot read this host's network interfaces", e);
        }
    }
}
