package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.machine.MachineIdRange;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis restored from a snapshot taken before a takeover: the entry names the former holder again, with its token. The
 * former holder must not renew it, or it would issue beside the node that took the ID over (found by the simulation,
 * seeds 22 and later with the Redis model's renewal fenced by the token alone).
 */
class RedisRollbackTests {

    private static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final String KEY = "vesta:rollback";

    private Path dir;
    private RedisServerProcess server;
    private RedisClient client;
    private RedisMachineIdProvider a;
    private RedisMachineIdProvider b;

    @AfterEach
    void stop() throws Exception {
        for (RedisMachineIdProvider provider : new RedisMachineIdProvider[] {a, b}) {
            if (provider != null) {
                provider.close();
            }
        }
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (server != null) {
            server.close();
        }
    }

    private RedisMachineIdProvider provider(String owner, ManualTimeSource clock) {
        return RedisMachineIdProvider.builder(client, server.uri()).key(KEY).owner(owner).lease(LEASE)
                .heartbeat(Duration.ofSeconds(1)).timeSource(clock).timer((name, period, tick) -> () -> { }).build();
    }

    @Test
    void aHolderWhoseTakeoverTheRollbackForgotCannotRenewTheEntry() throws Exception {
        dir = Files.createTempDirectory("vesta-redis-rollback");
        server = new RedisServerProcess(RedisTestSupport.serverBinary(), dir, false).start();
        client = RedisClient.create(server.uri());
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            // A server up for longer than a lease: the first claim waits out nothing.
            admin.sync().hset(KEY, "store", RedisTestSupport.instance(admin) + "|0");
        }
        ManualTimeSource clockA = new ManualTimeSource(T0);
        a = provider("a", clockA);
        assertThat(a.acquire(new MachineIdRange(0, 0))).isZero();
        Path snapshot = dir.resolve("snapshot.rdb");
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            admin.sync().save();
        }
        Files.copy(dir.resolve("dump.rdb"), snapshot, StandardCopyOption.REPLACE_EXISTING);

        // a is cut off; by b's clock its lease has ended, and b takes the ID over after a's high water.
        ManualTimeSource clockB = new ManualTimeSource(T0.plus(LEASE).plusMillis(1));
        b = provider("b", clockB);
        assertThat(b.acquire(new MachineIdRange(0, 0))).isZero();
        long bStartsAfter = b.notBefore().getAsLong();

        // Redis is restored from the snapshot taken before the takeover: the entry carries a's token again.
        server.kill();
        Files.copy(snapshot, dir.resolve("dump.rdb"), StandardCopyOption.REPLACE_EXISTING);
        server.start();

        clockA.advance(Duration.ofMillis(500));
        boolean renewed = a.heartbeat();
        assertThat(renewed).as("a renewal on a server that may have lost the takeover").isFalse();
        assertThat(a.lease().heldUntil()).as("a never issues at or after b's start").isLessThanOrEqualTo(bStartsAfter);
    }
}
