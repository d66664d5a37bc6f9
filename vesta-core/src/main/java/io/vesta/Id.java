package io.vesta;

/**
 * The fields of a decoded ID. {@code time} is in the ID type's unit (seconds or milliseconds) since the
 * epoch; {@link IdService#transTime(long)} turns it into an instant.
 */
public record Id(long machine, long seq, long time, long genMethod, long type, long version) {

    /** The ID type this ID was made with. */
    public IdType idType() {
        return IdType.ofCode(type);
    }
}
