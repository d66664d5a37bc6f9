package io.vesta.protocol;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;

/**
 * The wire format between a central server and {@code io.vesta.client.RemoteIdService} (in vesta-client), version 1.
 *
 * <pre>
 * GET {base}/vesta/v1/ids?count=N        Accept: application/octet-stream
 * 200  Content-Type: application/octet-stream
 *      Vesta-Epoch: 1420041600000        (the server's epoch, Unix ms)
 *      body: N IDs, 8 bytes each, big-endian, in the order issued (strictly increasing)
 * 4xx/5xx  application/problem+json (RFC 9457) whose "detail" says why
 * </pre>
 *
 * <p>Eight bytes an ID is the least a 64-bit ID can take and needs no parsing: a batch of 100,000 IDs is
 * 800 KB and decodes with one bulk copy. The version is in the path so that a later format can be served
 * beside this one while clients move over.
 */
public final class BatchProtocol {

    /** The path of a batch, below a server's base URL. */
    public static final String PATH = "/vesta/v1/ids";

    /** The query parameter that carries the number of IDs asked for. */
    public static final String COUNT_PARAMETER = "count";

    /** The media type of a batch. */
    public static final String MEDIA_TYPE = "application/octet-stream";

    /** The response header that carries the server's epoch in Unix milliseconds. */
    public static final String EPOCH_HEADER = "Vesta-Epoch";

    private BatchProtocol() {
    }

    /** The body of a batch. */
    public static byte[] encode(long[] ids) {
        ByteBuffer body = ByteBuffer.allocate(ids.length * Long.BYTES);
        body.asLongBuffer().put(ids);
        return body.array();
    }

    /**
     * The IDs in a batch's body.
     * @throws IllegalArgumentException if the body is not a whole number of IDs
     */
    public static long[] decode(byte[] body) {
        if (body.length % Long.BYTES != 0) {
            throw new IllegalArgumentException("a batch must be a whole number of 8-byte IDs, was " + body.length + " bytes");
        }
        LongBuffer longs = ByteBuffer.wrap(body).asLongBuffer();
        long[] ids = new long[longs.remaining()];
        longs.get(ids);
        return ids;
    }
}
