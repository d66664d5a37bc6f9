package io.vesta.machine.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.test.ManualTimeSource;
import io.vesta.test.lease.TcpRelay;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22 item 4 on the Redis named by {@value RedisTestSupport#URL}: a node whose entry was taken over claims a
 * machine ID again by itself. A key of its own, deleted afterwards.
 */
class RedisLeaseRegainTests {

    static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");

    private RedisURI uri;
    private RedisClient client;
    private StatefulRedisConnection<String, String> admin;
    private String key;
    private RedisTestKey redis;

    @BeforeEach
    void connect() {
        redis = RedisTestKey.create("regain");
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

    private RedisMachineIdProvider provider(RedisClient via, RedisURI at, String owner, TimeSource clock, Duration heartbeat) {
        RedisMachineIdProvider provider = RedisMachineIdProvider.builder(via, at).key(key).owner(owner).timeSource(clock)
                .lease(Duration.ofSeconds(60)).heartbeat(heartbeat).build();
        redis.closeAfter(provider);
        return provider;
    }

    private EmbeddedIdService service(RedisMachineIdProvider provider, TimeSource clock) {
        EmbeddedIdService service = EmbeddedIdService.builder().type(IdType.MIN_GRANULARITY)
                .machineIdProvider(provider).timeSource(clock).build();
        redis.closeAfter(service);
        return service;
    }

    /**
     * A is cut off from Redis past its lease; B takes A's entry over, issues and closes. When A reaches Redis again it
     * finds the entry in other hands, and claims again by itself: the entry is free once more, so it gets its own
     * machine ID back, and issues after everything B issued, never one of B's IDs.
     */
    @Test
    void aNodeWhoseEntryWasTakenOverClaimsAgainAndIssuesAfterTheTakersLastId() throws Exception {
        TcpRelay partition = new TcpRelay("127.0.0.1", uri.getPort());
        redis.closeAfter(partition);
        RedisClient clientA = RedisClient.create(RedisTestSupport.uri(partition));
        clientA.setOptions(ClientOptions.builder().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        redis.closeAfter(clientA::shutdown);
        ManualTimeSource clockA = new ManualTimeSource(T0);
        RedisMachineIdProvider providerA = provider(clientA, RedisTestSupport.uri(partition), "node-a", clockA,
                Duration.ofMillis(100));
        EmbeddedIdService a = service(providerA, clockA);
        long lost = a.machineId();
        long[] fromA = a.genIds(1_000);

        partition.cut();
        ManualTimeSource clockB = new ManualTimeSource(T0.plusSeconds(61));
        EmbeddedIdService b = service(provider(client, uri, "node-b", clockB, Duration.ofSeconds(20)), clockB);
        assertThat(b.machineId()).isEqualTo(lost);
        long[] fromB = b.genIds(1_000);
        b.close();
        long highWaterOfB = Long.parseLong(admin.sync().hget(key, Long.toString(lost)).split("\\|", 5)[2]);

        // A's pause ends; its next heartbeat finds the entry under B's token.
        clockA.set(T0.plusSeconds(62));
        partition.restore();
        List<Long> again = new ArrayList<>();
        RedisTestSupport.awaitTrue("A issues again after its entry was taken over", () -> {
            try {
                again.addAll(Arrays.stream(a.genIds(500)).boxed().toList());
                return true;
            } catch (MachineIdUnavailableException e) {
                return false;
            }
        });
        for (int i = 0; i < 20; i++) {
            again.addAll(Arrays.stream(a.genIds(500)).boxed().toList());
        }

        assertThat(a.machineId()).as("its own machine ID, free again").isEqualTo(lost);
        assertThat(again).hasSize(10_500).doesNotHaveDuplicates()
                .allSatisfy(id -> assertThat(a.expId(id).machine()).isEqualTo(lost));
        long firstTime = again.stream().mapToLong(id -> a.expId(id).time()).min().orElseThrow();
        assertThat(a.transTime(firstTime).toEpochMilli()).as("after the high water B left").isGreaterThanOrEqualTo(highWaterOfB);
        long lastOfB = Arrays.stream(fromB).map(id -> b.expId(id).time()).max().orElseThrow();
        assertThat(firstTime).isGreaterThan(lastOfB);
        Set<Long> before = new HashSet<>();
        Arrays.stream(fromA).forEach(before::add);
        Arrays.stream(fromB).forEach(before::add);
        assertThat(again).as("IDs A issued again that A or B had issued").noneMatch(before::contains);
        assertThat(a.machineIdLease().lostReason()).isNull();
    }
}
