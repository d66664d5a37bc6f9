package io.vesta.layout;

import io.vesta.DecodedId;
import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdService;
import io.vesta.IdType;

import java.time.Instant;

/**
 * The {@code makeId}, {@code expId}, {@code transTime} and {@code decode} of an {@link IdService}, written once for
 * every service: each {@code makeId} variant fills the fields it does not take with the service's own version, type
 * and gen-method, and every ID is made and read with the service's codec. What a service leaves to itself is its
 * machine ID, for {@link IdService#makeId(long, long)}: the embedded service's changes with its block, and a client has
 * none. Thread-safe and immutable.
 */
public final class IdMaker {

    private final long version;
    private final IdType type;
    private final GenMethod genMethod;
    private final IdCodec codec;

    /**
     * @param version the version filled in when a call does not give one
     * @param type the type filled in when a call does not give one
     * @param genMethod the gen-method filled in when a call does not give one
     * @param codec the epoch IDs are made and read against
     */
    public IdMaker(long version, IdType type, GenMethod genMethod, IdCodec codec) {
        this.version = version;
        this.type = type;
        this.genMethod = genMethod;
        this.codec = codec;
    }

    public IdCodec codec() {
        return codec;
    }

    /** An ID of this maker's gen-method, type and version. */
    public long makeId(long time, long seq, long machine) {
        return makeId(version, type.code(), genMethod.code(), time, seq, machine);
    }

    /** An ID of this maker's type and version. */
    public long makeId(long genMethod, long time, long seq, long machine) {
        return makeId(version, type.code(), genMethod, time, seq, machine);
    }

    /** An ID of this maker's version. */
    public long makeId(long type, long genMethod, long time, long seq, long machine) {
        return makeId(version, type, genMethod, time, seq, machine);
    }

    /** An ID of the fields given, each checked against its range. */
    public long makeId(long version, long type, long genMethod, long time, long seq, long machine) {
        return codec.makeId(version, type, genMethod, time, seq, machine);
    }

    /** The fields of an ID; the ID's own type bit selects the layout. */
    public Id expId(long id) {
        return codec.expId(id);
    }

    /** The instant a time field stands for, read in this maker's type. */
    public Instant transTime(long time) {
        return codec.transTime(type, time);
    }

    /** An ID and everything it says about itself, its instant read in the ID's own type. */
    public DecodedId decode(long id) {
        return DecodedId.of(id, codec);
    }
}
