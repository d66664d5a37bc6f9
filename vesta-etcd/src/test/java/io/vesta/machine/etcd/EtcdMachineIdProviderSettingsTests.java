package io.vesta.machine.etcd;

import io.etcd.jetcd.Client;
import io.vesta.InvalidSettingException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every setting is checked when the provider is built, under the name the user typed, with its value and what is
 * allowed; no etcd needed (the client connects on first use).
 */
class EtcdMachineIdProviderSettingsTests {

    private static final String PREFIX = "vesta.machine-id.etcd.";
    private static final List<URI> ENDPOINTS = List.of(URI.create("http://127.0.0.1:2379"));

    private static EtcdMachineIdProvider.Builder builder() {
        return EtcdMachineIdProvider.builder(ENDPOINTS).settingPrefix(PREFIX).owner("node-a");
    }

    private static void refused(EtcdMachineIdProvider.Builder builder, String setting, String... parts) {
        assertThatThrownBy(builder::build).isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith(PREFIX + setting + "=").hasMessageContainingAll(parts)
                .extracting(e -> ((InvalidSettingException) e).setting()).isEqualTo(PREFIX + setting);
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() {
        EtcdMachineIdProvider provider = builder().build();
        try {
            assertThat(provider.prefix()).isEqualTo("/vesta/machine-ids/").isEqualTo(EtcdMachineIdProvider.DEFAULT_PREFIX);
            assertThat(provider.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
            assertThat(provider.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
            assertThat(provider.maxClockSkew()).isEqualTo(Duration.ofSeconds(1));
            assertThat(provider.commandTimeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(provider.describe())
                    .isEqualTo("etcd (prefix /vesta/machine-ids/ at [http://127.0.0.1:2379], owner 'node-a')");
        } finally {
            provider.close();
        }
    }

    @Test
    void theCommandTimeoutFollowsTheHeartbeatBetweenASecondAndTheLease() {
        EtcdMachineIdProvider fast = builder().lease(Duration.ofSeconds(1)).heartbeat(Duration.ofMillis(100)).build();
        EtcdMachineIdProvider slow = builder().lease(Duration.ofMinutes(10)).heartbeat(Duration.ofSeconds(30)).build();
        try {
            assertThat(fast.commandTimeout()).isEqualTo(Duration.ofSeconds(1));
            assertThat(slow.commandTimeout()).isEqualTo(Duration.ofSeconds(30));
        } finally {
            fast.close();
            slow.close();
        }
    }

    @Test
    void endpointsMustBeHttpUrlsWithAPort() {
        refused(EtcdMachineIdProvider.builder((List<URI>) null).settingPrefix(PREFIX), "endpoints", "(unset)",
                "http://127.0.0.1:2379");
        refused(EtcdMachineIdProvider.builder(List.of()).settingPrefix(PREFIX), "endpoints", "[]", "is empty");
        refused(EtcdMachineIdProvider.builder(List.of(URI.create("tcp://127.0.0.1:2379"))).settingPrefix(PREFIX),
                "endpoints", "tcp://127.0.0.1:2379", "http://host:port or https://host:port");
        refused(EtcdMachineIdProvider.builder(List.of(URI.create("http://etcd-1"))).settingPrefix(PREFIX),
                "endpoints", "http://etcd-1", "http://host:port");
    }

    @Test
    void aPrefixMustEndInASlashAndNotBeBlank() {
        refused(builder().prefix("/vesta/ids"), "prefix", "/vesta/ids", "does not end in '/'");
        refused(builder().prefix(" "), "prefix", "1 to 512 characters");
        refused(builder().prefix("/" + "p".repeat(512) + "/"), "prefix", "1 to 512 characters");
    }

    @Test
    void theLeaseHeartbeatAndOwnerHaveTheirRanges() {
        refused(builder().lease(Duration.ofMillis(500)), "lease", "500ms", "[1000ms, 3600000ms]");
        refused(builder().lease(Duration.ofSeconds(9)).heartbeat(Duration.ofSeconds(4)), "heartbeat", "4000ms",
                "at most a third of vesta.machine-id.etcd.lease 9000ms");
        refused(builder().owner(""), "owner", "is blank");
    }

    @Test
    void theClockSkewAndConnectTimeoutHaveTheirRanges() {
        refused(builder().maxClockSkew(Duration.ofMinutes(2)), "max-clock-skew", "120000ms", "[0ms, 60000ms]");
        refused(builder().maxClockSkew(Duration.ofMillis(-1)), "max-clock-skew", "-1ms", "[0ms, 60000ms]");
        refused(builder().connectTimeout(Duration.ofMillis(10)), "connect-timeout", "10ms", "[100ms, 60000ms]");
        refused(builder().connectTimeout(Duration.ofMinutes(5)), "connect-timeout", "300000ms", "[100ms, 60000ms]");
    }

    @Test
    void authenticationNeedsUserAndPassword() {
        refused(builder().user("vesta"), "password", "(unset)", "etcd authentication needs both");
        refused(builder().password("secret"), "user", "(unset)", "etcd authentication needs both");
        builder().user("vesta").password("secret").build().close();
    }

    @Test
    void tlsFilesMustBeReadablePemPairs(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.pem");
        refused(builder().trustCertificates(missing), "tls.trust-certificates", missing.toString(), "cannot be read");
        Path garbage = Files.writeString(dir.resolve("ca.pem"), "not a certificate");
        refused(builder().trustCertificates(garbage), "tls.trust-certificates", garbage.toString(), "makes none");
        refused(builder().keyCertificate(garbage, null), "tls.private-key", "(unset)", "is required when");
    }

    @Test
    void aGivenClientRefusesTheClientsOwnSettingsByName(@TempDir Path dir) {
        try (Client client = Client.builder().endpoints(ENDPOINTS).build()) {
            EtcdMachineIdProvider.builder(client).owner("node-a").build().close();
            refused(EtcdMachineIdProvider.builder(client).settingPrefix(PREFIX).user("vesta"), "user", "vesta",
                    "cannot be used with a given etcd client");
            refused(EtcdMachineIdProvider.builder(client).settingPrefix(PREFIX).password("secret"), "password", "****",
                    "cannot be used with a given etcd client");
            refused(EtcdMachineIdProvider.builder(client).settingPrefix(PREFIX).authority("etcd.local"), "authority",
                    "etcd.local");
            refused(EtcdMachineIdProvider.builder(client).settingPrefix(PREFIX).connectTimeout(Duration.ofSeconds(1)),
                    "connect-timeout", "PT1S");
            refused(EtcdMachineIdProvider.builder(client).settingPrefix(PREFIX).trustCertificates(dir),
                    "tls.trust-certificates",
                    dir.toString());
            refused(EtcdMachineIdProvider.builder(client).settingPrefix(PREFIX).keyCertificate(dir, dir),
                    "tls.key-certificate",
                    dir.toString());
        }
        assertThatThrownBy(() -> EtcdMachineIdProvider.builder((Client) null)).isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("client");
    }
}
