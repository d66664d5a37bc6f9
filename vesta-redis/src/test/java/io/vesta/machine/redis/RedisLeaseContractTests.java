package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.machine.MachineIdProvider;
import io.vesta.test.lease.MachineIdLeaseContract;
import io.vesta.test.lease.TcpRelay;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * The lease contract on a {@code redis-server} of each test's own ({@value RedisTestSupport#SERVER}), which the test
 * pauses, restarts empty and restarts from a snapshot; every node reaches it through a relay that can lose replies.
 */
class RedisLeaseContractTests extends MachineIdLeaseContract {

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.SEVERE);
    }

    private Path dir;
    private RedisServerProcess server;
    private TcpRelay relay;
    private RedisClient client;
    private RedisURI relayed;

    @Override
    protected void openStore() throws Exception {
        String binary = RedisTestSupport.serverBinary();
        dir = Files.createTempDirectory("vesta-redis-contract");
        server = new RedisServerProcess(binary, dir, false).start();
        relay = new TcpRelay("127.0.0.1", server.uri().getPort());
        relayed = RedisTestSupport.uri(relay);
        client = RedisClient.create(relayed);
        markStore();
    }

    /**
     * Names this server instance as the one the last claim ran on, as on a server that has run for longer than a
     * lease: a first claim then waits out nothing. The faults that lose writes lose this mark too.
     */
    private void markStore() {
        try (RedisClient direct = RedisClient.create(server.uri());
                StatefulRedisConnection<String, String> admin = direct.connect()) {
            admin.sync().hset("vesta:contract", "store", RedisTestSupport.instance(admin) + "|0");
        }
    }

    @Override
    protected void closeStore() throws Exception {
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (relay != null) {
            relay.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Override
    protected MachineIdProvider provider(Node node) {
        return RedisMachineIdProvider.builder(client, relayed).key("vesta:contract").owner(node.owner())
                .lease(node.lease()).heartbeat(node.renewal()).timeSource(node.timeSource()).build();
    }

    /** {@code max-clock-skew}, 1 s by default. */
    @Override
    protected Duration documentedClockBound() {
        return RedisMachineIdProvider.DEFAULT_MAX_CLOCK_SKEW;
    }

    /** SIGSTOP: the server keeps its connections and answers nothing. */
    @Override
    protected AutoCloseable stall() throws Exception {
        server.pause();
        return server::resume;
    }

    @Override
    protected AutoCloseable loseReplies() {
        return relay.loseReplies();
    }

    @Override
    protected void restartEmpty() throws Exception {
        server.kill();
        Files.deleteIfExists(dir.resolve("dump.rdb"));
        server.start();
    }

    /** {@code SAVE}, then a restart from that RDB file. */
    @Override
    protected Snapshot snapshot() throws Exception {
        try (RedisClient direct = RedisClient.create(server.uri());
                StatefulRedisConnection<String, String> connection = direct.connect()) {
            connection.sync().save();
        }
        Path copy = dir.resolve("snapshot.rdb");
        Files.copy(dir.resolve("dump.rdb"), copy, StandardCopyOption.REPLACE_EXISTING);
        return () -> {
            server.kill();
            Files.copy(copy, dir.resolve("dump.rdb"), StandardCopyOption.REPLACE_EXISTING);
            server.start();
        };
    }
}
