package io.vesta.machine.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A test's own lease key on the shared Redis ({@link RedisTestSupport#sharedUri()}), marked as claimed on this server
 * instance before with nothing lost (so no claim waits out a lease), and what the test opened on it: closed in reverse
 * order, then the key deleted and the admin connection closed.
 */
final class RedisTestKey implements AutoCloseable {

    private final RedisURI uri;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> admin;
    private final String key;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    private RedisTestKey(String purpose) {
        uri = RedisTestSupport.sharedUri();
        client = RedisTestSupport.client(uri);
        admin = client.connect();
        key = "vesta-test:" + purpose + ":" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        admin.sync().hset(key, "store", RedisTestSupport.instance(admin) + "|0");
    }

    /** A fresh key under {@code vesta-test:<purpose>:}. */
    static RedisTestKey create(String purpose) {
        return new RedisTestKey(purpose);
    }

    RedisURI uri() {
        return uri;
    }

    RedisClient client() {
        return client;
    }

    StatefulRedisConnection<String, String> admin() {
        return admin;
    }

    String key() {
        return key;
    }

    /** Closes {@code resource} when the test ends, before what was registered earlier. */
    void closeAfter(AutoCloseable resource) {
        toClose.add(resource);
    }

    @Override
    public void close() throws Exception {
        try {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                toClose.get(i).close();
            }
        } finally {
            admin.sync().del(key);
            admin.close();
            client.shutdown();
        }
    }
}
