package io.vesta.client;

import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.protocol.BatchProtocol;

import java.io.IOException;
import java.net.http.HttpResponse;

/**
 * Fetches one batch from one server: the HTTP exchange ({@link HttpTransport}) and the checks on the answer
 * ({@link BatchValidator}), so that what it returns may be handed out as it is. The prefetch buffer calls it on its
 * refill thread, once per server its rounds ask ({@link ServerRotation}); {@link RemoteIdService#genIds} on the
 * caller's thread for a batch the prefetched one cannot serve.
 */
final class BatchFetcher implements PrefetchBuffer.BatchFetch, AutoCloseable {

    private final HttpTransport transport;
    private final BatchValidator validator;
    private final IdCodec codec;
    /** How long one unit of an ID's time field lasts, in nanoseconds. */
    private final long unitNanos;

    BatchFetcher(HttpTransport transport, BatchValidator validator, IdCodec codec, IdType type) {
        this.transport = transport;
        this.validator = validator;
        this.codec = codec;
        this.unitNanos = IdLayout.of(type).unitMillis() * 1_000_000;
    }

    /** On the buffer's refill thread, which the transport may interrupt to cut a stalled exchange short. */
    @Override
    public long[] fetch(IdServer server, int count, Runnable onReserved) throws IOException, InterruptedException {
        return fetch(server, count, true, onReserved);
    }

    /** On a caller's thread, which must never see the transport's interrupt. */
    long[] fetchOnCallersThread(IdServer server, int count) throws IOException, InterruptedException {
        return fetch(server, count, false, null);
    }

    /** How long the server took to issue {@code ids}, at least: their times' span less one unit, never below 0. */
    @Override
    public long issueSpanNanos(long[] ids) {
        if (ids.length < 2) {
            return 0;
        }
        long units = codec.expId(ids[ids.length - 1]).time() - codec.expId(ids[0]).time() - 1;
        return Math.max(0, units) * unitNanos;
    }

    /** What went wrong in a fetch, in the words of a {@link ServersUnavailableException}. */
    String describe(Exception e) {
        return transport.describe(e);
    }

    /** Closes the transport: an exchange under way on the refill thread ends, and no new one starts. */
    @Override
    public void close() {
        transport.close();
    }

    private long[] fetch(IdServer server, int count, boolean onRefillThread, Runnable onReserved)
            throws IOException, InterruptedException {
        HttpResponse<byte[]> response = transport.get(server.batchUri(count), onRefillThread, onReserved);
        return validator.validate(server.base(), count, response.headers().firstValue(BatchProtocol.EPOCH_HEADER).orElse(null),
                response.body());
    }
}
