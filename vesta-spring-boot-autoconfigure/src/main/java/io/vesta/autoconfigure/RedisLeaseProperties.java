package io.vesta.autoconfigure;

import io.vesta.machine.redis.RedisMachineIdProvider;

import java.time.Duration;

/** {@code vesta.machine-id.redis.*}: machine IDs leased from a Redis hash. */
public class RedisLeaseProperties extends LeaseProperties {

    /** Redis to lease from, as a Lettuce URI such as redis://user:secret@host:6379/0, rediss:// for TLS, or redis-sentinel://. Defaults to the Redis the application uses through Spring Boot (spring.data.redis.*, or a Docker Compose or Testcontainers service connection), else localhost:6379. */
    private String url;

    /** Hash that holds the leases, one field per machine ID: nodes that share the key share the range. */
    private String key = RedisMachineIdProvider.DEFAULT_KEY;

    /** How often the lease is renewed; at most a third of the lease. Defaults to 5s. */
    // Unset means the provider's own default: its class is in vesta-redis, which need not be on the classpath.
    private Duration heartbeat;

    /** How far apart the clocks of the nodes sharing the key may be. After Redis restarted or failed over (and may have lost writes), a claim waits the lease plus this before its first ID. 0 to 1m. */
    // Not RedisMachineIdProvider's constant: this class must load without vesta-redis (only a String constant is
    // inlined by the compiler). ConfigurationMetadataDefaultsTests holds the two equal.
    private Duration maxClockSkew = Duration.ofSeconds(1);

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public String getKey() {
        return key;
    }

    public void setKey(String key) {
        this.key = key;
    }

    public Duration getHeartbeat() {
        return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    public Duration getMaxClockSkew() {
        return maxClockSkew;
    }

    public void setMaxClockSkew(Duration maxClockSkew) {
        this.maxClockSkew = maxClockSkew;
    }
}
