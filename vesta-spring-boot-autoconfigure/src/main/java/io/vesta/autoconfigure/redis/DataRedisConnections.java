package io.vesta.autoconfigure.redis;

import io.lettuce.core.RedisURI;
import io.vesta.InvalidSettingException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * Spring Boot's {@link DataRedisConnectionDetails} ({@code spring.data.redis.*}, a Docker Compose or Testcontainers
 * service connection) as the URI of the primary Vesta leases on. Loaded only when Spring Boot's Redis module is there.
 */
public final class DataRedisConnections {

    private DataRedisConnections() {
    }

    /**
     * The primary, standalone or through Sentinel, with the connection's credentials. TLS is on when the connection has
     * an SSL bundle; the lease connection then trusts what the JVM trusts (the bundle's own stores are not applied:
     * set {@code vesta.machine-id.redis.url} to a {@code rediss://} URI for anything else).
     * @throws InvalidSettingException naming {@code vesta.machine-id.redis.url} for a cluster or a master/replica set
     */
    public static RedisURI uri(DataRedisConnectionDetails details) {
        if (details.getCluster() != null || details.getMasterReplica() != null) {
            throw new InvalidSettingException("vesta.machine-id.redis.url", null, "a Redis URI naming one primary, such"
                    + " as redis://host:6379/0 or redis-sentinel://host:26379/0#master", "is required: the application's"
                    + " Redis is a " + (details.getCluster() != null ? "cluster" : "master/replica set") + ", and the"
                    + " leases live in one hash on one primary");
        }
        RedisURI.Builder builder;
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel != null) {
            builder = RedisURI.builder().withDatabase(sentinel.getDatabase()).withSentinelMasterId(sentinel.getMaster());
            for (DataRedisConnectionDetails.Node node : sentinel.getNodes()) {
                builder.withSentinel(node.host(), node.port());
            }
        } else {
            DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
            builder = RedisURI.builder().withHost(standalone.getHost()).withPort(standalone.getPort())
                    .withDatabase(standalone.getDatabase());
        }
        builder.withSsl(details.getSslBundle() != null);
        String password = details.getPassword();
        if (password != null && !password.isEmpty()) {
            String username = details.getUsername();
            if (username != null && !username.isEmpty()) {
                builder.withAuthentication(username, password);
            } else {
                builder.withPassword(password.toCharArray());
            }
        }
        return builder.build();
    }
}
