package io.vesta.autoconfigure;

import io.vesta.machine.IpListMachineIdProvider;

import java.net.InetAddress;

/** This host's own addresses, for ip-list tests that must match the machine they run on. */
public final class ThisHost {

    private ThisHost() {
    }

    /** An address of this host that identifies it: not loopback, link-local, wildcard or multicast. */
    public static String routableAddress() {
        return IpListMachineIdProvider.localAddresses().stream()
                .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress() && !a.isAnyLocalAddress() && !a.isMulticastAddress())
                .map(InetAddress::getHostAddress)
                .map(ip -> ip.contains("%") ? ip.substring(0, ip.indexOf('%')) : ip)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("this host has no routable address for the ip-list tests"));
    }
}
