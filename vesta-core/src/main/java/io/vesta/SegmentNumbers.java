package io.vesta;

/**
 * Dense numbers per business tag, Leaf-segment style: what {@code @VestaId(segment = "orders")} properties are filled
 * from. {@code io.vesta.segment.SegmentIdService} (vesta-jdbc) implements it on a database table; the adapters
 * (Hibernate, MyBatis, Spring Data) need only this interface.
 */
public interface SegmentNumbers {

    /**
     * The next number of {@code bizTag}.
     * @throws IllegalArgumentException if the tag is unknown (and tags are not created on first use)
     */
    long nextId(String bizTag);

    /** {@code count} numbers of {@code bizTag}, increasing. */
    long[] nextIds(String bizTag, int count);
}
