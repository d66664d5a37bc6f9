package io.vesta.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

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
                "vesta.machine-id.zookeeper.owner", "zk-node", "vesta.machine-id.zookeeper.lease", "60s"));
        MachineIdProperties machineId = properties.getMachineId();
        assertThat(List.of(machineId.getDb(), machineId.getRedis(), machineId.getZookeeper()))
                .extracting(LeaseProperties::getOwner, LeaseProperties::getLease)
                .containsExactly(tuple("db-node", Duration.ofSeconds(40)),
                        tuple("redis-node", Duration.ofSeconds(50)),
                        tuple("zk-node", Duration.ofSeconds(60)));
    }

    @Test
    void anUnsetLeaseIsLeftToTheProviderForEveryStore() {
        MachineIdProperties machineId = bind(Map.of("vesta.machine-id.strategy", "db")).getMachineId();
        assertThat(List.of(machineId.getDb(), machineId.getRedis(), machineId.getZookeeper()))
                .extracting(LeaseProperties::getOwner, LeaseProperties::getLease)
                .containsOnly(tuple(null, null));
    }

    private static VestaProperties bind(Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values))
                .bind("vesta", Bindable.ofInstance(new VestaProperties())).get();
    }
}
