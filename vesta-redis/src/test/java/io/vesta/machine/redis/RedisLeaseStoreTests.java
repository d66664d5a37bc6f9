package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.redis.RedisLeaseStore.Entry;
import io.vesta.machine.redis.RedisLeaseStore.Snapshot;
import io.vesta.machine.StoreMark;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Redis side of the leases, script by script, on the server {@value RedisTestSupport#URL} names. */
class RedisLeaseStoreTests {

    private static final long NOW = 1_780_000_000_000L;

    private final String key = "vesta:test:store:" + UUID.randomUUID();
    private RedisClient client;
    private RedisLeaseStore store;

    @BeforeEach
    void connect() {
        RedisURI uri = RedisTestSupport.sharedUri();
        client = RedisTestSupport.client(uri);
        store = new RedisLeaseStore(client, uri, true, key, Duration.ofSeconds(5));
    }

    @AfterEach
    void cleanUp() {
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().del(key);
        }
        store.close();
    }

    private static Entry entry(long machineId, long generation, long expiry, String token) {
        return new Entry(machineId, generation, expiry, NOW - 1_000, token, "ids-1@10.0.0.7:8080");
    }

    private String claimFresh(long... machineIds) {
        Snapshot snapshot = store.read();
        List<Entry> written = Arrays.stream(machineIds).mapToObj(id -> entry(id, 1, NOW + 30_000, "t1")).toList();
        return store.claim(snapshot, new StoreMark(snapshot.runId(), NOW), Arrays.asList(new Entry[written.size()]), written);
    }

    @Test
    void aMissingHashReadsAsNoEntriesOnAServerThatWasNotPromoted() {
        Snapshot snapshot = store.read();

        assertThat(snapshot.entries()).isEmpty();
        assertThat(snapshot.store()).isNull();
        assertThat(snapshot.runId()).contains(".");
        assertThat(snapshot.uptimeSeconds()).isNotNegative();
        assertThat(snapshot.promoted()).isFalse();
    }

    @Test
    void aClaimWritesEveryEntryOfTheBlockAndTheStoreMark() {
        assertThat(claimFresh(1016, 1017)).isEqualTo("ok");

        Snapshot after = store.read();
        assertThat(after.entries()).containsOnlyKeys(1016L, 1017L);
        Entry read = after.entries().get(1016L);
        assertThat(read.encode()).isEqualTo(entry(1016, 1, NOW + 30_000, "t1").encode()).isEqualTo(read.raw());
        assertThat(StoreMark.parse(after.store())).isEqualTo(new StoreMark(after.runId(), NOW));
    }

    @Test
    void aClaimOnEntriesThatChangedSinceTheReadTakesNothing() {
        Snapshot stale = store.read();
        assertThat(claimFresh(1016)).isEqualTo("ok");
        Snapshot current = store.read();

        String second = store.claim(current, new StoreMark(current.runId(), NOW), Arrays.asList(null, null),
                List.of(entry(1015, 1, NOW + 30_000, "t2"), entry(1016, 2, NOW + 30_000, "t2")));
        assertThat(second).as("1016 was read as free, but t1 holds it").isEqualTo("changed");
        assertThat(store.read().entries()).as("all of the block or none").containsOnlyKeys(1016L);

        String late = store.claim(stale, new StoreMark(stale.runId(), NOW), Arrays.asList((Entry) null),
                List.of(entry(1008, 1, NOW + 30_000, "t3")));
        assertThat(late).as("the store mark changed since that read").isEqualTo("store");
    }

    @Test
    void aRenewalCarriesTheFenceAndFailsOnceAnotherTokenHoldsTheEntry() {
        claimFresh(1016);
        Snapshot snapshot = store.read();
        RedisLeaseBackend.Fence fence = new RedisLeaseBackend.Fence("t1", snapshot.runId(), 1);

        assertThat(store.renew(fence, List.of(entry(1016, 1, NOW + 60_000, "t1")))).isEqualTo("ok");
        assertThat(store.read().entries().get(1016L).leaseExpiry()).isEqualTo(NOW + 60_000);

        assertThat(store.renew(new RedisLeaseBackend.Fence("t9", snapshot.runId(), 1),
                List.of(entry(1016, 1, NOW + 90_000, "t9")))).isEqualTo("moved:1016");
        assertThat(store.renew(fence, List.of(entry(1020, 1, NOW + 60_000, "t1")))).isEqualTo("gone:1020");
        assertThat(store.renew(new RedisLeaseBackend.Fence("t1", "another.instance", 1),
                List.of(entry(1016, 1, NOW + 90_000, "t1")))).isEqualTo("store:" + snapshot.runId());
        assertThat(store.read().entries().get(1016L).leaseExpiry()).as("no refused renewal wrote").isEqualTo(NOW + 60_000);
    }

    @Test
    void anOperatorsEndExpiresOnlyTheLiveEntriesOfTheToken() {
        Snapshot snapshot = store.read();
        store.claim(snapshot, new StoreMark(snapshot.runId(), NOW), Arrays.asList(null, null, null),
                List.of(entry(1016, 3, NOW + 30_000, "t1"), entry(1017, 3, NOW + 30_000, "t1"),
                        entry(1008, 5, NOW + 30_000, "other")));

        assertThat(store.end("t1", NOW, "t1-ended")).isEqualTo(2);

        Entry ended = store.read().entries().get(1016L);
        assertThat(ended.generation()).isEqualTo(4);
        assertThat(ended.leaseExpiry()).isEqualTo(NOW);
        assertThat(ended.highWater()).isEqualTo(NOW - 1_000);
        assertThat(ended.token()).isEqualTo("t1-ended");
        assertThat(ended.owner()).isEqualTo("ids-1@10.0.0.7:8080");
        assertThat(store.read().entries().get(1008L).token()).isEqualTo("other");
        assertThat(store.end("t1", NOW, "again")).as("nothing live carries t1 any more").isZero();
    }

    @Test
    void aFieldThatIsNoLeaseIsRefusedNamingTheFieldAndTheHash() {
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().hset(key, "1016", "not a lease");
        }

        assertThatThrownBy(store::read)
                .isInstanceOf(MachineIdUnavailableException.class)
                .hasMessageContaining("Field '1016'")
                .hasMessageContaining("'not a lease'")
                .hasMessageContaining("hash " + key);
    }

    @Test
    void aStoreMarkReadsBackAndAnythingElseIsNoMark() {
        StoreMark mark = new StoreMark("abc.def", NOW);

        assertThat(StoreMark.parse(mark.encode())).isEqualTo(mark);
        assertThat(StoreMark.parse(null)).isNull();
        assertThat(StoreMark.parse("no-bar")).isNull();
        assertThat(StoreMark.parse("abc|soon")).isNull();
    }

    @Test
    void theStoreIsDescribedWithoutCredentials() {
        RedisURI withPassword = RedisURI.create("redis://:s3cret@10.1.2.3:6380/2");
        try (RedisLeaseStore described = new RedisLeaseStore(client, withPassword, false, "ids", Duration.ofSeconds(1))) {
            assertThat(described.describe()).isEqualTo("hash ids at 10.1.2.3:6380/2");
        }
    }

    @Test
    void aClosedStoreRefusesToTalkToRedis() {
        store.read();
        RedisLeaseStore closed = new RedisLeaseStore(client, RedisTestSupport.sharedUri(), false, key, Duration.ofSeconds(5));
        closed.close();

        assertThatThrownBy(closed::read).isInstanceOf(IllegalStateException.class).hasMessageContaining("was closed");
    }
}
