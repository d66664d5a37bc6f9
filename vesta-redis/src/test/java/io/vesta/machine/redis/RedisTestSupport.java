package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.vesta.test.TestVariables;
import io.vesta.test.lease.TcpRelay;

import java.util.function.BooleanSupplier;


/** Where the tests find Redis: the shared server named by {@value #URL}, and the binary for servers of their own. */
final class RedisTestSupport {

    /** A running Redis, e.g. {@code redis://127.0.0.1:6379}; the tests that need it skip when it is unset. */
    static final String URL = "VESTA_TEST_REDIS_URL";
    /** The {@code redis-server} binary, for the tests that restart a server of their own; they skip when it is unset. */
    static final String SERVER = "VESTA_TEST_REDIS_SERVER";

    private RedisTestSupport() {
    }

    static RedisURI sharedUri() {
        return RedisURI.create(TestVariables.require(URL, "redis://127.0.0.1:6379"));
    }

    /** Where a client reaches Redis through {@code relay}. */
    static RedisURI uri(TcpRelay relay) {
        return RedisURI.create("redis://127.0.0.1:" + relay.port());
    }

    static String serverBinary() {
        return TestVariables.require(SERVER, "/usr/bin/redis-server");
    }

    /** The run_id of the server behind {@code client}. */
    static String runId(StatefulRedisConnection<String, String> connection) {
        String info = connection.sync().info("server");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("run_id:")) {
                return line.substring("run_id:".length()).trim();
            }
        }
        throw new AssertionError("INFO server has no run_id: " + info);
    }

    /**
     * The server instance as the store mark names it: {@code run_id.master_replid} (a restart changes the first, every
     * promotion the second).
     */
    static String instance(StatefulRedisConnection<String, String> connection) {
        String replication = connection.sync().info("replication");
        for (String line : replication.split("\r?\n")) {
            if (line.startsWith("master_replid:")) {
                return runId(connection) + "." + line.substring("master_replid:".length()).trim();
            }
        }
        throw new AssertionError("INFO replication has no master_replid: " + replication);
    }

    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        io.vesta.test.Await.until(what, java.time.Duration.ofSeconds(20), condition);
    }

    static RedisClient client(RedisURI uri) {
        return RedisClient.create(uri);
    }
}
