package io.vesta.autoconfigure.redis;

import io.lettuce.core.RedisURI;
import io.vesta.InvalidSettingException;
import org.springframework.core.env.Environment;

/**
 * Where {@code vesta.machine-id.strategy=redis} connects: {@code vesta.machine-id.redis.url}, or else the server an
 * application on Spring Data Redis already configured under {@code spring.data.redis.*}, so that one Redis setting
 * serves both.
 */
public final class RedisMachineIdSettings {

    private static final String URL = "vesta.machine-id.redis.url";
    private static final String ALLOWED = "a Redis URI such as redis://host:6379/0, rediss://host:6380 or"
            + " redis-sentinel://host:26379/0#master";

    private RedisMachineIdSettings() {
    }

    /**
     * The URI to lease through.
     * @throws InvalidSettingException naming the property whose value is no Redis URI (its password masked)
     */
    public static RedisURI uri(String url, Environment environment) {
        if (url != null && !url.isBlank()) {
            return parse(URL, url);
        }
        String dataUrl = environment.getProperty("spring.data.redis.url");
        if (dataUrl != null && !dataUrl.isBlank()) {
            return parse("spring.data.redis.url", dataUrl);
        }
        String host = environment.getProperty("spring.data.redis.host", "localhost");
        Integer port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
        RedisURI.Builder builder = RedisURI.builder().withHost(host).withPort(port)
                .withDatabase(environment.getProperty("spring.data.redis.database", Integer.class, 0))
                .withSsl(environment.getProperty("spring.data.redis.ssl.enabled", Boolean.class, false));
        String password = environment.getProperty("spring.data.redis.password");
        if (password != null && !password.isEmpty()) {
            String username = environment.getProperty("spring.data.redis.username");
            if (username != null && !username.isEmpty()) {
                builder.withAuthentication(username, password);
            } else {
                builder.withPassword(password.toCharArray());
            }
        }
        return builder.build();
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
