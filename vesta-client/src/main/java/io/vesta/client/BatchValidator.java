package io.vesta.client;

import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdRange;
import io.vesta.protocol.BatchProtocol;

import java.net.URI;
import java.time.Instant;

/**
 * The checks on a batch a server answered, made before any of its IDs is handed out: the server's epoch equals this
 * client's, the body is whole IDs and as many as asked for, and every ID has genMethod 1, this client's type, a
 * machine ID in the server range and follows the one before it.
 *
 * <p>That costs about a nanosecond per ID against microseconds for the request, and it turns a wrong URL (a REST
 * endpoint, another application, a proxy's page) or a misconfigured server into a failover with a clear error,
 * rather than into IDs that claim to be a server's and may repeat an embedded node's or another server's.
 */
final class BatchValidator {

    private final IdType type;
    private final IdCodec codec;
    private final MachineIdRange serverRange;
    /** genMethod and type of every valid ID, in place, so that one mask and compare checks both. */
    private final long expectedConstant;
    private final long constantMask;

    BatchValidator(IdType type, IdCodec codec, MachineIdRange serverRange) {
        this.type = type;
        this.codec = codec;
        this.serverRange = serverRange;
        this.expectedConstant = (GenMethod.CENTRAL_SERVER.code() << IdLayout.GEN_METHOD_SHIFT) | (type.code() << IdLayout.TYPE_SHIFT);
        this.constantMask = (IdLayout.MAX_GEN_METHOD << IdLayout.GEN_METHOD_SHIFT) | (IdLayout.MAX_TYPE << IdLayout.TYPE_SHIFT);
    }

    /**
     * The IDs of a batch {@code server} answered when asked for {@code count}.
     * @param epochHeader the {@value BatchProtocol#EPOCH_HEADER} header, or null when the server sent none
     * @throws InvalidBatchException saying what is wrong when the batch fails a check
     */
    long[] validate(URI server, int count, String epochHeader, byte[] body) throws InvalidBatchException {
        if (epochHeader != null && !epochHeader.trim().equals(Long.toString(codec.epochMillis()))) {
            throw new InvalidBatchException("the server's epoch is " + epochOf(epochHeader) + " but this client's is "
                    + codec.epoch() + "; both must use the same epoch (vesta.epoch) or decoded times are wrong");
        }
        long[] ids;
        try {
            ids = BatchProtocol.decode(body);
        } catch (IllegalArgumentException e) {
            throw new InvalidBatchException("the response is not a batch: " + e.getMessage());
        }
        if (ids.length != count) {
            throw new InvalidBatchException("asked for " + count + " IDs, got " + ids.length);
        }
        long min = serverRange.min();
        long max = serverRange.max();
        for (int i = 0; i < ids.length; i++) {
            long id = ids[i];
            long machine = id & IdLayout.MAX_MACHINE;
            if ((id & constantMask) != expectedConstant || machine < min || machine > max
                    || (i > 0 && Long.compareUnsigned(id, ids[i - 1]) <= 0)) {
                throw new InvalidBatchException(whatIsWrong(server, ids, i));
            }
        }
        return ids;
    }

    private String whatIsWrong(URI server, long[] ids, int i) {
        Id fields = codec.expId(ids[i]);
        if (fields.genMethod() != GenMethod.CENTRAL_SERVER.code()) {
            return "ID " + ids[i] + " has genMethod " + fields.genMethod() + ", not 1 (central-server): is " + server
                    + " the base URL of a Vesta server?";
        }
        if (fields.type() != type.code()) {
            return "ID " + ids[i] + " is of type " + fields.idType() + " but this client is configured for " + type
                    + " (vesta.type must be the same on servers and clients)";
        }
        if (!serverRange.contains(fields.machine())) {
            return "ID " + ids[i] + " has machine ID " + fields.machine() + ", outside the server range " + serverRange
                    + " (vesta.machine-id.server-range)";
        }
        return "ID " + ids[i] + " at position " + i + " does not follow " + ids[i - 1] + ": a batch must be strictly increasing";
    }

    private static String epochOf(String header) {
        try {
            return Instant.ofEpochMilli(Long.parseLong(header.trim())).toString();
        } catch (NumberFormatException e) {
            return "'" + header + "'";
        }
    }
}
