package io.vesta.machine;

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
 * A node's machine ID is the position of one of its own addresses in a configured list, offset by the
 * range start: with range 0-923 and list {@code 10.0.0.5,10.0.0.6}, host 10.0.0.6 is machine 1. Every node
 * gets the same list, so the IDs follow from the deployment without any coordination.
 */
public final class IpListMachineIdProvider implements MachineIdProvider {

    private final List<InetAddress> list;
    private final Supplier<Collection<InetAddress>> hostAddresses;
    private final String name;
    private volatile String description = "ip-list";

    /**
     * @param ipList IP literals (IPv4 or IPv6), no host names: a list must not depend on DNS answers
     * @param hostAddresses this host's addresses; {@link #localAddresses()} reads the network interfaces
     * @param name how the list is called where the user typed it, used in errors
     */
    public IpListMachineIdProvider(List<String> ipList, Supplier<Collection<InetAddress>> hostAddresses, String name) {
        this.name = name;
        this.hostAddresses = hostAddresses;
        this.list = parse(ipList, name);
    }

    public IpListMachineIdProvider(List<String> ipList) {
        this(ipList, IpListMachineIdProvider::localAddresses, "ipList");
    }

    private static List<InetAddress> parse(List<String> ipList, String name) {
        if (ipList == null || ipList.isEmpty()) {
            throw new IllegalArgumentException(name + " must list at least one IP address, was empty");
        }
        List<InetAddress> parsed = new ArrayList<>(ipList.size());
        Set<InetAddress> seen = new LinkedHashSet<>();
        for (String entry : ipList) {
            String ip = entry == null ? "" : entry.trim();
            if (!isIpLiteral(ip)) {
                throw new IllegalArgumentException(name + " entry '" + ip + "' is not an IPv4 or IPv6 address");
            }
            InetAddress address;
            try {
                address = InetAddress.getByName(ip); // a literal: no lookup happens
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(name + " entry '" + ip + "' is not an IP address", e);
            }
            if (!seen.add(address)) {
                throw new IllegalArgumentException(name + " lists " + ip + " twice; each address must appear once");
            }
            parsed.add(address);
        }
        return List.copyOf(parsed);
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

    @Override
    public long acquire(MachineIdRange range) {
        Collection<InetAddress> own = hostAddresses.get();
        for (int i = 0; i < list.size(); i++) {
            if (own.contains(list.get(i))) {
                long machineId = range.min() + i;
                if (!range.contains(machineId)) {
                    throw new IllegalArgumentException(name + " puts this host (" + list.get(i).getHostAddress()
                            + ") at position " + i + ", machine ID " + machineId + ", outside the machine-ID range "
                            + range + "; the list may hold at most " + range.size() + " addresses");
                }
                description = "ip-list (" + list.get(i).getHostAddress() + " at position " + i + ")";
                return machineId;
            }
        }
        throw new MachineIdUnavailableException("None of this host's addresses " + format(own) + " is in "
                + name + " " + format(list) + "; add one of them to the list");
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
