package io.vesta.autoconfigure;

import io.vesta.SegmentNumbers;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The context's {@link SegmentNumbers} (the {@code SegmentIdService} of {@code vesta.segment.enabled=true}), looked up
 * at the first number rather than when an adapter is built, so that an adapter never makes the segment service (and
 * its database) start early. Without one, the first number fails and says what to set.
 */
public final class LazySegmentNumbers implements SegmentNumbers {

    private final ObjectProvider<SegmentNumbers> segments;

    public LazySegmentNumbers(ObjectProvider<SegmentNumbers> segments) {
        this.segments = segments;
    }

    @Override
    public long nextId(String bizTag) {
        return segments().nextId(bizTag);
    }

    @Override
    public long[] nextIds(String bizTag, int count) {
        return segments().nextIds(bizTag, count);
    }

    private SegmentNumbers segments() {
        SegmentNumbers numbers = segments.getIfUnique();
        if (numbers == null) {
            throw new IllegalStateException("the application has no SegmentIdService: set vesta.segment.enabled=true"
                    + " (segment mode, on the application's DataSource) for @VestaId(segment = ...) properties");
        }
        return numbers;
    }
}
