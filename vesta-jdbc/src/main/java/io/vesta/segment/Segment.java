package io.vesta.segment;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Numbers in [start, end); {@code cursor} is the next one to hand out and may run past the end. */
final class Segment {

    private static final VarHandle CURSOR;

    static {
        try {
            CURSOR = MethodHandles.lookup().findVarHandle(Segment.class, "cursor", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final long start;
    final long end;
    final long refillAt;
    /**
     * In the segment itself rather than in an AtomicLong beside it: the hot path then reads one object, not
     * two (CosId's segment does the same).
     */
    volatile long cursor;

    Segment(long start, long end, double refillThreshold) {
        this.start = start;
        this.end = end;
        this.refillAt = start + (long) ((end - start) * refillThreshold);
        this.cursor = start;
    }

    /** Takes {@code count} numbers: returns the first, which is this caller's alone. */
    long draw(long count) {
        return (long) CURSOR.getAndAdd(this, count);
    }
}
