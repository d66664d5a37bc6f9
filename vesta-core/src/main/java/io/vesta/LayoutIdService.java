package io.vesta;

import io.vesta.layout.IdCodec;

import java.time.Instant;

/**
 * The part of an {@link IdService} that only reads and writes the layout, written once for the embedded service and
 * the client: {@code expId}, {@code transTime}, {@code decode}, and the {@code makeId} variants that fill the fields
 * a call does not give with the service's own version, type and gen-method. What a subclass adds is how it issues IDs,
 * and {@link #makeId(long, long)}, which needs a machine ID of its own: the embedded service's changes with its block,
 * and a client has none.
 */
public abstract class LayoutIdService implements IdService {

    private final long version;
    private final IdType type;
    private final GenMethod genMethod;
    private final IdCodec codec;

    /**
     * @param version the version filled in when a call does not give one
     * @param type the type filled in when a call does not give one, and the one {@link #transTime} reads
     * @param genMethod the gen-method filled in when a call does not give one
     * @param codec the epoch IDs are made and read against
     */
    protected LayoutIdService(long version, IdType type, GenMethod genMethod, IdCodec codec) {
        this.version = version;
        this.type = type;
        this.genMethod = genMethod;
        this.codec = codec;
    }

    /** The codec IDs are made and read with: the layout and the epoch. */
    public final IdCodec codec() {
        return codec;
    }

    @Override
    public final Id expId(long id) {
        return codec.expId(id);
    }

    /** The instant a time field stands for, read in this service's type. */
    @Override
    public final Instant transTime(long time) {
        return codec.transTime(type, time);
    }

    /** Decoded with this service's codec, so the instant is read in the ID's own type. */
    @Override
    public final DecodedId decode(long id) {
        return DecodedId.of(id, codec);
    }

    /** An ID of this service's gen-method, type and version. */
    @Override
    public final long makeId(long time, long seq, long machine) {
        return makeId(version, type.code(), genMethod.code(), time, seq, machine);
    }

    /** An ID of this service's type and version. */
    @Override
    public final long makeId(long genMethod, long time, long seq, long machine) {
        return makeId(version, type.code(), genMethod, time, seq, machine);
    }

    /** An ID of this service's version. */
    @Override
    public final long makeId(long type, long genMethod, long time, long seq, long machine) {
        return makeId(version, type, genMethod, time, seq, machine);
    }

    /** An ID of the fields given, each checked against its range. */
    @Override
    public final long makeId(long version, long type, long genMethod, long time, long seq, long machine) {
        return codec.makeId(version, type, genMethod, time, seq, machine);
    }
}
