package io.vesta.autoconfigure.client;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.EmbeddedIdServiceFactory;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.client.RemoteIdService;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * Turns {@code vesta.*} and {@code vesta.client.*} into a {@link RemoteIdService}. The builder checks the settings
 * and names a bad one under the prefixes given here ({@code vesta.client.timeout}, {@code vesta.version}); its
 * {@link InvalidSettingException} goes through as it is.
 */
final class RemoteIdServiceFactory {

    private RemoteIdServiceFactory() {
    }

    static RemoteIdService create(VestaProperties properties, VestaClientProperties client,
            Supplier<MachineIdProvider> machineIdProvider, TimeSource timeSource, TimestampStore timestampStore) {
        Instant epoch = EmbeddedIdServiceFactory.epoch(properties.getEpoch());
        List<String> servers = client.getServers() == null ? List.of() : client.getServers();
        RemoteIdService.Builder builder = RemoteIdService.builder()
                .settingPrefix("vesta.client.")
                .layoutSettingPrefix("vesta.")
                .servers(servers.toArray(String[]::new))
                .type(properties.getType())
                .epoch(epoch)
                .version(properties.getVersion())
                .serverRange(serverRange(properties))
                .prefetch(client.getPrefetch())
                .refillThreshold(client.getRefillThreshold())
                .timeout(client.getTimeout())
                .backoff(client.getBackoff().getInitial(), client.getBackoff().getMax());
        EmbeddedIdService fallback = null;
        if (client.getFallback() == VestaClientProperties.Fallback.EMBEDDED) {
            // Checked here rather than by the builder: only here is the fallback's genMethod a property of its own.
            if (properties.getGenMethod() != GenMethod.EMBEDDED) {
                throw new InvalidSettingException("vesta.gen-method", genMethodText(properties.getGenMethod()),
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

    /** The machine IDs servers issue under: the client refuses batches with any other. */
    private static MachineIdRange serverRange(VestaProperties properties) {
        VestaProperties.Range range = properties.getMachineId().getServerRange();
        return MachineIdRange.of("vesta.machine-id.server-range", range.getMin(), range.getMax());
    }

    private static String genMethodText(GenMethod genMethod) {
        return genMethod.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
