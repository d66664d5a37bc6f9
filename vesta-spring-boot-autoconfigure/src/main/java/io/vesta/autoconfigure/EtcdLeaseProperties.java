package io.vesta.autoconfigure;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code vesta.machine-id.etcd.*}: machine IDs leased from etcd, one key per machine ID under a prefix. The durations
 * are unset unless configured, meaning the provider's own defaults: its class is in vesta-etcd, which need not be on
 * the classpath (ConfigurationMetadataDefaultsTests holds the metadata's defaults equal to its constants).
 */
public class EtcdLeaseProperties extends LeaseProperties {

    /** etcd client URLs of the cluster's members, such as http://etcd-1:2379,http://etcd-2:2379 (https:// for TLS). Unset: the application's io.etcd.jetcd.Client bean, which Vesta uses but does not close; the etcd strategy needs one or the other. */
    private List<URI> endpoints = new ArrayList<>();

    /** Key prefix of the leases, one key per machine ID under it, ending in '/': nodes that share the prefix share the range. */
    // The String constant of EtcdMachineIdProvider, spelled out: the class must load without vesta-etcd.
    private String prefix = "/vesta/machine-ids/";

    /** How often the lease is renewed; at most a third of the lease. Defaults to 5s. */
    private Duration heartbeat;

    /** How far apart the clocks of the nodes sharing the prefix may be: a lease's end is written by its holder's clock and read by the others'. After etcd was restored from a snapshot (a new cluster ID), a claim waits the lease plus this before its first ID. 0 to 1m. Defaults to 1s. */
    private Duration maxClockSkew;

    /** How long the client Vesta makes for endpoints waits for etcd when connecting. 100ms to 1m. Defaults to 5s. */
    private Duration connectTimeout;

    /** User of etcd's authentication, set together with password; its role needs read and write on the prefix. Unset: no authentication. */
    private String user;

    /** Password of the etcd user, set together with user. */
    private String password;

    /** Authority (host name) to present to etcd in place of the endpoint's, for TLS with certificates issued to another name. */
    private String authority;

    /** TLS towards etcd, for https:// endpoints. */
    private final Tls tls = new Tls();

    public List<URI> getEndpoints() {
        return endpoints;
    }

    public void setEndpoints(List<URI> endpoints) {
        this.endpoints = endpoints;
    }

    public String getPrefix() {
        return prefix;
    }

    public void setPrefix(String prefix) {
        this.prefix = prefix;
    }

    public Duration getHeartbeat() {
        return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    public Duration getMaxClockSkew() {
        return maxClockSkew;
    }

    public void setMaxClockSkew(Duration maxClockSkew) {
        this.maxClockSkew = maxClockSkew;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public String getUser() {
        return user;
    }

    public void setUser(String user) {
        this.user = user;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public String getAuthority() {
        return authority;
    }

    public void setAuthority(String authority) {
        this.authority = authority;
    }

    public Tls getTls() {
        return tls;
    }

    /** {@code vesta.machine-id.etcd.tls.*}: the PEM files of TLS towards etcd. */
    public static class Tls {

        /** PEM file of the certificate authorities to trust for etcd's server certificates (a path, or a file: or classpath: location). Unset: the JVM's default trust. */
        private Path trustCertificates;

        /** PEM file of this node's client certificate chain, for etcd's client-certificate authentication; with private-key. */
        private Path keyCertificate;

        /** PEM file of the private key (PKCS#8) of key-certificate. */
        private Path privateKey;

        public Path getTrustCertificates() {
            return trustCertificates;
        }

        public void setTrustCertificates(Path trustCertificates) {
            this.trustCertificates = trustCertificates;
        }

        public Path getKeyCertificate() {
            return keyCertificate;
        }

        public void setKeyCertificate(Path keyCertificate) {
            this.keyCertificate = keyCertificate;
        }

        public Path getPrivateKey() {
            return privateKey;
        }

        public void setPrivateKey(Path privateKey) {
            this.privateKey = privateKey;
        }
    }
}
