package io.vesta.machine.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.vesta.machine.MachineIdRange;
import io.vesta.test.lease.FallbackScenario;
import io.vesta.test.lease.TcpRelay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fallback machine ID on the Redis named by {@value RedisTestSupport#URL}, reached through a {@link TcpRelay} the
 * test cuts: Redis down at start-up, and Redis lost past the lease of a node that held one ({@link FallbackScenario});
 * no ID twice. A key of its own; a lease of 3 s renewed every second.
 */
class RedisFallbackTests {

    private RedisTestKey redis;
    private FallbackScenario scenario;

    @TempDir
    Path marks;

    @BeforeEach
    void connect() throws Exception {
        redis = RedisTestKey.create("fallback");
        TcpRelay partition = new TcpRelay("127.0.0.1", redis.uri().getPort());
        redis.closeAfter(partition);
        RedisClient via = RedisClient.create(RedisTestSupport.uri(partition));
        via.setOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        redis.closeAfter(via::shutdown);
        scenario = new FallbackScenario(FallbackScenario.Store.behind(partition, () -> RedisMachineIdProvider
                .builder(via, RedisTestSupport.uri(partition)).key(redis.key()).owner("node-a")
                .lease(Duration.ofSeconds(3)).heartbeat(Duration.ofSeconds(1)).build()),
                new MachineIdRange(0, 1015), 1016, marks);
        redis.closeAfter(scenario);
    }

    @AfterEach
    void disconnect() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void aNodeThatCannotReachRedisAtStartUpIssuesUnderItsFallbackThenUnderALease() throws Exception {
        scenario.storeDownAtStartUp();
        assertThat(redis.admin().sync().hget(redis.key(), "0")).as("the lease in Redis").isNotNull();
    }

    @Test
    void aNodeThatLosesRedisPastItsLeaseIssuesUnderItsFallbackThenUnderALeaseAgain() throws Exception {
        scenario.storeLostMidRun();
        assertThat(redis.admin().sync().hget(redis.key(), "0")).as("the lease in Redis").isNotNull();
    }
}
