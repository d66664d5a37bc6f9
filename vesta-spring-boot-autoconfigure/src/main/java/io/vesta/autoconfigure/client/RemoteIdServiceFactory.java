package io.vesta.autoconfigure.client;

import static io.vesta.autoconfigure.PropertyChecks.checkDuration;
import static io.vesta.autoconfigure.PropertyChecks.checkLong;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.autoconfigure.EmbeddedIdServiceFactory;
import io.vesta.autoconfigure.InvalidVestaPropertyException;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.client.RemoteIdService;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Turns {@code vesta.*} and {@code vesta.client.*} into a {@link RemoteIdService}, checking each setting so that
 * a bad value fails start-up naming the property, its value and what is allowed.
 */
final class RemoteIdServiceFactory {

    private static final String SERVERS = "vesta.client.servers";
    private static final String SERVERS_ALLOWED = "a comma-separated list of the base URLs of the central servers, such as"
            + " http://10.0.0.1:8080,http://10.0.0.2:8080";

    private RemoteIdServiceFactory() {
    }

    static RemoteIdService create(VestaProperties properties, VestaClientProperties client,
            Supplier<MachineIdProvider> machineIdProvider, TimeSource timeSource, TimestampStore timestampStore) {
        Instant epoch = EmbeddedIdServiceFactory.epoch(properties.getEpoch(), Instant.ofEpochMilli(timeSource.currentTimeMillis()));
        checkLong("vesta.version", properties.getVersion(), 0, 1);
        Duration timeout = checkDuration("vesta.client.timeout", client.getTimeout(), Duration.ofMillis(1), Duration.ofMinutes(10));
        Duration initialBackoff = checkDuration("vesta.client.backoff.initial", client.getBackoff().getInitial(),
                Duration.ofMillis(1), Duration.ofHours(1));
        Duration maxBackoff = checkDuration("vesta.client.backoff.max", client.getBackoff().getMax(), initialBackoff,
                Duration.ofHours(1));
        checkLong("vesta.client.prefetch", client.getPrefetch(), 1, IdService.MAX_BATCH);
        double threshold = client.getRefillThreshold();
        if (!(threshold >= 0 && threshold <= 1)) {
            throw new InvalidVestaPropertyException("vesta.client.refill-threshold", threshold, "a share in [0, 1]",
                    "is out of range");
        }
        RemoteIdService.Builder builder = RemoteIdService.builder()
                .servers(servers(client.getServers()))
                .type(properties.getType())
                .epoch(epoch)
                .version(properties.getVersion())
                .serverRange(serverRange(properties))
                .prefetch(client.getPrefetch())
                .refillThreshold(threshold)
                .timeout(timeout)
                .backoff(initialBackoff, maxBackoff);
        EmbeddedIdService fallback = null;
        if (client.getFallback() == VestaClientProperties.Fallback.EMBEDDED) {
            if (properties.getGenMethod() != GenMethod.EMBEDDED) {
                throw new InvalidVestaPropertyException("vesta.gen-method", genMethodText(properties.getGenMethod()),
                        "embedded (or unset): the fallback issues genMethod 0 IDs under an embedded-range machine ID",
                        "cannot be used with vesta.client.fallback=embedded");
            }
            fallback = EmbeddedIdServiceFactory.create(properties, machineIdProvider.get(), timeSource, timestampStore);
            builder.fallback(fallback);
        }
        try {
            return builder.build();
        } catch (RuntimeException e) {
            if (fallback != null) {
                fallback.close();
            }
            throw e;
        }
    }

    private static List<URI> servers(List<String> servers) {
        if (servers == null || servers.isEmpty()) {
            throw new InvalidVestaPropertyException(SERVERS, null, SERVERS_ALLOWED, "is required when vesta.mode is client");
        }
        String value = String.join(",", servers);
        List<URI> uris = new ArrayList<>();
        Set<URI> seen = new LinkedHashSet<>();
        for (String server : servers) {
            String text = server == null ? "" : server.trim();
            URI uri;
            try {
                uri = URI.create(text);
            } catch (IllegalArgumentException e) {
                throw new InvalidVestaPropertyException(SERVERS, value, SERVERS_ALLOWED, "has an entry that is not a URL: '"
                        + text + "' (" + e.getMessage() + ")");
            }
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getRawQuery() != null
                    || uri.getRawFragment() != null) {
                throw new InvalidVestaPropertyException(SERVERS, value, SERVERS_ALLOWED,
                        "has an entry that is not an http or https base URL with a host and no query: '" + text + "'");
            }
            if (!seen.add(uri)) {
                throw new InvalidVestaPropertyException(SERVERS, value, SERVERS_ALLOWED + ", each listed once", "lists " + text + " twice");
            }
            uris.add(uri);
        }
        return uris;
    }

    /** The machine IDs servers issue under: the client refuses batches with any other. */
    private static MachineIdRange serverRange(VestaProperties properties) {
        VestaProperties.Range range = properties.getMachineId().getServerRange();
        checkLong("vesta.machine-id.server-range.min", range.getMin(), 0, 1023);
        checkLong("vesta.machine-id.server-range.max", range.getMax(), range.getMin(), 1023);
        return new MachineIdRange(range.getMin(), range.getMax());
    }

    private static String genMethodText(GenMethod genMethod) {
        return genMethod.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
