package io.vesta.autoconfigure.redis;

import io.lettuce.core.RedisURI;

/**
 * The Redis the application connects to through Spring Boot, for {@code vesta.machine-id.strategy=redis} without a URL
 * of its own ({@link RedisMachineIdSettings}). A type of Vesta's so that the strategy works without Spring Boot's Redis
 * module, which is read only when it is there ({@link DataRedisConnections}).
 */
@FunctionalInterface
public interface ApplicationRedis {

    /** Its URI, or null when the application has no Redis connection. */
    RedisURI uri();
}
