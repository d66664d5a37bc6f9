package io.vesta.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The lease settings shared by the leased strategies ({@link LeaseProperties}) bind under each store's own names, as
 * they did when each store spelled them out, and leave the lease to the provider when unset.
 */
class MachineIdPropertiesTests {

    @Test
    void eachStoreBindsTheSharedLeaseSettingsUnderItsOwnName() {
        VestaProperties properties = bind(Map.of(
                "vesta.machine-id.db.owner", "db-node", "vesta.machine-id.db.lease", "40s",
                "vesta.machine-id.redis.owner", "redis-node", "vesta.machine-id.redis.lease", "50s",
                "vesta.machine-id.zookeeper.owner", "zk-node", "vesta.machine-id.zookeeper.lease", "60s",
                "vesta.machine-id.etcd.owner", "etcd-node", "vesta.machine-id.etcd.lease", "70s"));
        MachineIdProperties machineId = properties.getMachineId();
        assertThat(List.of(machineId.getDb(), machineId.getRedis(), machineId.getZookeeper(), machineId.getEtcd()))
                .extracting(LeaseProperties::getOwner, LeaseProperties::getLease)
                .containsExactly(tuple("db-node", Duration.ofSeconds(40)),
                        tuple("redis-node", Duration.ofSeconds(50)),
                        tuple("zk-node", Duration.ofSeconds(60)),
                        tuple("etcd-node", Duration.ofSeconds(70)));
    }

    @Test
    void anUnsetLeaseIsLeftToTheProviderForEveryStore() {
        MachineIdProperties machineId = bind(Map.of("vesta.machine-id.strategy", "db")).getMachineId();
        assertThat(List.of(machineId.getDb(), machineId.getRedis(), machineId.getZookeeper(), machineId.getEtcd()))
                .extracting(LeaseProperties::getOwner, LeaseProperties::getLease)
                .containsOnly(tuple(null, null));
    }

    @Test
    void etcdBindsItsEndpointsAndTlsFilesAsSpringConvertsThem() {
        EtcdLeaseProperties etcd = bind(Map.of("vesta.machine-id.strategy", "etcd",
                "vesta.machine-id.etcd.endpoints", "http://etcd-1:2379, https://etcd-2:2379",
                "vesta.machine-id.etcd.tls.trust-certificates", "/etc/vesta/ca.pem",
                "vesta.machine-id.etcd.tls.key-certificate", "file:/etc/vesta/node.pem",
                "vesta.machine-id.etcd.tls.private-key", "/etc/vesta/node-key.pem")).getMachineId().getEtcd();
        assertThat(etcd.getEndpoints()).containsExactly(URI.create("http://etcd-1:2379"), URI.create("https://etcd-2:2379"));
        assertThat(etcd.getTls().getTrustCertificates()).isEqualTo(Path.of("/etc/vesta/ca.pem"));
        assertThat(etcd.getTls().getKeyCertificate()).isEqualTo(Path.of("/etc/vesta/node.pem"));
        assertThat(etcd.getTls().getPrivateKey()).isEqualTo(Path.of("/etc/vesta/node-key.pem"));
        assertThat(etcd.getPrefix()).isEqualTo("/vesta/machine-ids/");
    }

    private static VestaProperties bind(Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values))
                .bind("vesta", Bindable.ofInstance(new VestaProperties())).get();
    }
}
