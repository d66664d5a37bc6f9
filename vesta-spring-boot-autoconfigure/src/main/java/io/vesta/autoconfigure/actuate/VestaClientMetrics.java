package io.vesta.autoconfigure.actuate;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.vesta.client.RemoteIdService;

import java.net.URI;

/**
 * Meters of a client ({@code vesta.mode=client}), read from its own counters when a registry is scraped: batches
 * fetched, failures of each server, failovers to the next server, IDs issued by the fallback, IDs dropped as older
 * than {@code vesta.client.max-id-age}, and IDs in memory.
 */
public class VestaClientMetrics implements MeterBinder {

    private final RemoteIdService client;

    public VestaClientMetrics(RemoteIdService client) {
        this.client = client;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("vesta.client.batches.fetched", client, RemoteIdService::batchesFetched)
                .description("Batches of IDs the central servers delivered to this client").register(registry);
        for (URI server : client.servers()) {
            FunctionCounter.builder("vesta.client.server.failures", client, c -> c.serverFailures().getOrDefault(server, 0L))
                    .description("Times a central server failed, timed out or sent an invalid batch")
                    .tag("server", server.toString()).register(registry);
        }
        FunctionCounter.builder("vesta.client.failovers", client, RemoteIdService::failovers)
                .description("Batches fetched from a server after another one failed or was backing off").register(registry);
        FunctionCounter.builder("vesta.client.fallback.ids", client, RemoteIdService::fallbackIds)
                .description("IDs issued by the embedded fallback because no server answered").register(registry);
        FunctionCounter.builder("vesta.client.expired.ids", client, RemoteIdService::expiredIds)
                .description("Prefetched IDs dropped unissued because they grew older than vesta.client.max-id-age")
                .register(registry);
        Gauge.builder("vesta.client.buffered.ids", client, RemoteIdService::bufferedIds)
                .description("IDs fetched and not yet handed out").register(registry);
        Gauge.builder("vesta.client.batch.size", client, RemoteIdService::batchSize)
                .description("IDs the next background fetch asks for; it adapts to how fast batches are used up")
                .register(registry);
    }
}
