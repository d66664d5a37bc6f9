package io.vesta.autoconfigure.client;

import io.vesta.EmbeddedIdService;
import io.vesta.EmbeddedIdServiceBuilder;
import io.vesta.GenMethod;
import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.EmbeddedIdServiceFactory;
import io.vesta.autoconfigure.MachineIdProperties;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.client.RemoteIdService;
import io.vesta.client.RemoteIdServiceBuilder;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslOptions;

import javax.net.ssl.SSLParameters;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Turns {@code vesta.*} and {@code vesta.client.*} into a {@link RemoteIdService}. The builder checks the settings
 * and names a bad one under the prefixes given here ({@code vesta.client.timeout}, {@code vesta.version}); its
 * {@link InvalidSettingException} goes through as it is.
 */
final class RemoteIdServiceFactory {

    private RemoteIdServiceFactory() {
    }

    /**
     * @param sslBundles the context's bundles, for {@code vesta.client.ssl.bundle}; null when the context has none
     * @param customizers applied to the client's builder, after the properties
     * @param fallbackCustomizers applied to the embedded fallback's builder, after the properties
     */
    static RemoteIdService create(VestaProperties properties, VestaClientProperties client,
            Supplier<MachineIdProvider> machineIdProvider, TimeSource timeSource, TimestampStore timestampStore,
            SslBundles sslBundles, Consumer<RemoteIdServiceBuilder> customizers,
            Consumer<EmbeddedIdServiceBuilder> fallbackCustomizers) {
        Instant epoch = EmbeddedIdServiceFactory.epoch(properties.getEpoch());
        List<String> servers = client.getServers() == null ? List.of() : client.getServers();
        RemoteIdServiceBuilder builder = RemoteIdService.builder()
                .settingPrefix("vesta.client.")
                .layoutSettingPrefix("vesta.")
                .servers(servers.toArray(String[]::new))
                .type(properties.getType())
                .epoch(epoch)
                .version(properties.getVersion())
                .serverRange(serverRange(properties))
                .prefetch(client.getPrefetch())
                .maxPrefetch(client.getMaxPrefetch())
                .batchLifetime(client.getBatchLifetime())
                .maxIdAge(client.getMaxIdAge())
                .timeSource(timeSource)
                .refillThreshold(client.getRefillThreshold())
                .timeout(client.getTimeout())
                .backoff(client.getBackoff().getInitial(), client.getBackoff().getMax())
                .headers(client.getHeaders())
                .token(client.getToken());
        if (client.getSsl().getBundle() != null) {
            SslBundle bundle = sslBundle(sslBundles, client.getSsl().getBundle());
            builder.ssl(bundle.createSslContext(), sslParameters(bundle.getOptions()));
        }
        customizers.accept(builder);
        EmbeddedIdService fallback = null;
        if (client.getFallback() == VestaClientProperties.Fallback.EMBEDDED) {
            // Checked here rather than by the builder: only here is the fallback's genMethod a property of its own.
            if (properties.getGenMethod() != GenMethod.EMBEDDED) {
                throw new InvalidSettingException("vesta.gen-method", genMethodText(properties.getGenMethod()),
                        "embedded (or unset): the fallback issues genMethod 0 IDs under an embedded-range machine ID",
                        "cannot be used with vesta.client.fallback=embedded");
            }
            fallback = EmbeddedIdServiceFactory.create(properties, machineIdProvider.get(), timeSource, timestampStore,
                    fallbackCustomizers);
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

    private static SslBundle sslBundle(SslBundles sslBundles, String name) {
        List<String> names = sslBundles == null ? List.of() : sslBundles.getBundleNames();
        try {
            if (sslBundles != null) {
                return sslBundles.getBundle(name);
            }
        } catch (NoSuchSslBundleException e) {
            // Reported below, with the bundles there are.
        }
        throw new InvalidSettingException("vesta.client.ssl.bundle", name,
                "the name of an SSL bundle under spring.ssl.bundle.* (" + (names.isEmpty() ? "the application has none"
                        : "the application has " + String.join(", ", names)) + ")",
                "names no SSL bundle");
    }

    /** The bundle's protocols and ciphers, or null for the SSL context's defaults. */
    private static SSLParameters sslParameters(SslOptions options) {
        if (options == null || !options.isSpecified()) {
            return null;
        }
        SSLParameters parameters = new SSLParameters();
        if (options.getCiphers() != null) {
            parameters.setCipherSuites(options.getCiphers());
        }
        if (options.getEnabledProtocols() != null) {
            parameters.setProtocols(options.getEnabledProtocols());
        }
        return parameters;
    }

    /** The machine IDs servers issue under: the client refuses batches with any other. */
    private static MachineIdRange serverRange(VestaProperties properties) {
        MachineIdProperties.Range range = properties.getMachineId().getServerRange();
        return MachineIdRange.of("vesta.machine-id.server-range", range.getMin(), range.getMax());
    }

    private static String genMethodText(GenMethod genMethod) {
        return genMethod.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
