package io.vesta.machine.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.test.lease.TcpRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fallback machine ID on the Redis named by {@value RedisTestSupport#URL}: a node that cannot reach Redis at
 * start-up issues under its fallback ID, and under a leased one once Redis answers; no ID twice. A key of its own.
 */
class RedisFallbackTests {

    private RedisURI uri;
    private RedisClient client;
    private StatefulRedisConnection<String, String> admin;
    private String key;
    private RedisTestKey redis;

    @TempDir
    Path marks;

    @BeforeEach
    void connect() {
        redis = RedisTestKey.create("fallback");
        uri = redis.uri();
        client = redis.client();
        admin = redis.admin();
        key = redis.key();
    }

    @AfterEach
    void disconnect() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aNodeThatCannotReachRedisAtStartUpIssuesUnderItsFallbackThenUnderALease() throws Exception {
        TcpRelay partition = new TcpRelay("127.0.0.1", uri.getPort());
        redis.closeAfter(partition);
        partition.cut();
        RedisClient via = RedisClient.create(RedisTestSupport.uri(partition));
        via.setOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        redis.closeAfter(via::shutdown);
        RedisMachineIdProvider provider = RedisMachineIdProvider.builder(via, RedisTestSupport.uri(partition)).key(key)
                .owner("node-a").lease(Duration.ofSeconds(3)).heartbeat(Duration.ofSeconds(1)).build();
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY).machineIdRange(0, 1015)
                .machineIdProvider(provider).machineIdFallback(1016L)
                .machineIdFallbackCheckInterval(Duration.ofMillis(100)).timestampStoreDirectory(marks).build();
        redis.closeAfter(service);
        assertThat(service.machineId()).isEqualTo(1016);
        List<Long> ids = new ArrayList<>();
        Arrays.stream(service.genIds(5_000)).forEach(ids::add);

        partition.restore();
        RedisTestSupport.awaitTrue("a leased machine ID once Redis answers", () -> {
            Arrays.stream(service.genIds(100)).forEach(ids::add);
            return !service.onFallback();
        });
        Arrays.stream(service.genIds(5_000)).forEach(ids::add);
        assertThat(service.machineId()).isZero();
        assertThat(ids).doesNotHaveDuplicates();
        assertThat(service.fallbackIdsIssued()).isGreaterThanOrEqualTo(5_000);
        assertThat(admin.sync().hget(key, "0")).as("the lease in Redis").isNotNull();
    }
}
