package io.vesta;

import io.vesta.layout.IdCodec;

import java.time.Instant;

/**
 * An ID and everything it says about itself: the one shape in which every JSON answer of Vesta (the server, the
 * Actuator endpoint, the samples) shows a decoded ID. {@code idString} is the same value as {@code id}, as a
 * string, for clients that cannot hold 64-bit integers exactly (JavaScript's numbers stop at 2^53).
 * {@code instant} is the wall-clock time the time field stands for, read in the unit of the ID's own type.
 */
public record DecodedId(long id, String idString, long machine, long seq, long time, long genMethod, long type,
        IdType idType, long version, Instant instant) {

    /** Decodes {@code id} with {@code codec}'s epoch. */
    public static DecodedId of(long id, IdCodec codec) {
        Id fields = codec.expId(id);
        return new DecodedId(id, Long.toString(id), fields.machine(), fields.seq(), fields.time(), fields.genMethod(),
                fields.type(), fields.idType(), fields.version(), codec.transTime(fields.idType(), fields.time()));
    }
}
