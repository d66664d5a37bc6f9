package io.vesta.autoconfigure.redis;

import io.lettuce.core.RedisURI;
import io.vesta.InvalidSettingException;

/**
 * Where {@code vesta.machine-id.strategy=redis} connects: {@code vesta.machine-id.redis.url}, or else the Redis the
 * application already connects to through Spring Boot ({@link ApplicationRedis}: {@code spring.data.redis.*}, or a
 * Docker Compose or Testcontainers service connection), so that one Redis setting serves both; or else
 * {@code localhost:6379}, Boot's own default.
 */
public final class RedisMachineIdSettings {

    private static final String URL = "vesta.machine-id.redis.url";
    private static final String ALLOWED = "a Redis URI such as redis://host:6379/0, rediss://host:6380 or"
            + " redis-sentinel://host:26379/0#master";

    private RedisMachineIdSettings() {
    }

    /**
     * The URI to lease through.
     * @param url {@code vesta.machine-id.redis.url}, or null
     * @param application the application's connection, or null when it has none
     * @throws InvalidSettingException naming the property whose value is no Redis URI (its password masked), or
     *         {@code vesta.machine-id.redis.url} when the application's Redis is a cluster or master/replica set
     */
    public static RedisURI uri(String url, ApplicationRedis application) {
        if (url != null && !url.isBlank()) {
            return parse(URL, url);
        }
        RedisURI applications = application != null ? application.uri() : null;
        return applications != null ? applications : RedisURI.create("localhost", 6379);
    }

    private static RedisURI parse(String property, String url) {
        try {
            return RedisURI.create(url);
        } catch (RuntimeException e) {
            throw new InvalidSettingException(property, masked(url), ALLOWED, "is no Redis URI (" + e.getMessage() + ")");
        }
    }

    /** The URL with whatever stands between {@code ://} and {@code @} (a password) replaced, for messages. */
    static String masked(String url) {
        int scheme = url.indexOf("://");
        int at = url.lastIndexOf('@');
        return scheme >= 0 && at > scheme ? url.substring(0, scheme + 3) + "******" + url.substring(at) : url;
    }
}
