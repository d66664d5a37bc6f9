package io.vesta;

import java.time.Instant;

/**
 * Issues, decodes and manufactures Vesta IDs. Implementations are thread-safe.
 *
 * <p>The {@code makeId} variants fill the fields they do not take from this node's own configuration
 * (machine ID, genMethod, type, version). Every field is range-checked; an out-of-range field is an
 * {@link IllegalArgumentException} naming the field, its value and the allowed range.
 */
public interface IdService {

    /** The largest batch {@link #genIds(int)} issues in one call. */
    int MAX_BATCH = 100_000;

    /** The next ID of this node. */
    long genId();

    /**
     * A batch of {@code count} IDs, unique and strictly increasing.
     * @param count 1 to {@value #MAX_BATCH}
     */
    long[] genIds(int count);

    /** Decodes an ID into its fields; the ID's own type bit selects the layout. */
    Id expId(long id);

    /** The wall-clock instant of a decoded time field, in this node's type and epoch. */
    Instant transTime(long time);

    /**
     * An ID and everything it says about itself, in the one shape every JSON answer of Vesta uses. The embedded
     * service and the client read the instant in the ID's own type; this default, for implementations without a
     * codec, reads it with {@link #transTime} and so in this node's type.
     */
    default DecodedId decode(long id) {
        Id fields = expId(id);
        return new DecodedId(id, Long.toString(id), fields.machine(), fields.seq(), fields.time(), fields.genMethod(),
                fields.type(), fields.idType(), fields.version(), transTime(fields.time()));
    }

    long makeId(long time, long seq);

    long makeId(long time, long seq, long machine);

    long makeId(long genMethod, long time, long seq, long machine);

    long makeId(long type, long genMethod, long time, long seq, long machine);

    long makeId(long version, long type, long genMethod, long time, long seq, long machine);
}
