package io.vesta.segment;

/**
 * A dated tag's counter passed its width in a period: {@code orders} with width 6 has no number after the 999,999th
 * of a day. Never wrapped or widened, which would repeat a number or change its length: every call of the tag fails
 * until the next period starts a new counter.
 */
public class DatedNumberOverflowException extends IllegalStateException {

    private final String bizTag;
    private final String period;
    private final int width;
    private final long reached;

    public DatedNumberOverflowException(String bizTag, String period, int width, long reached) {
        super("Dated tag '" + bizTag + "' has no number left in period " + period + ": its counter reached " + reached
                + ", beyond width " + width + " (at most " + (DatedTag.pow10(width) - 1) + "). Numbers start again "
                + "in the next period; give the tag a larger width (on every node) for more per period");
        this.bizTag = bizTag;
        this.period = period;
        this.width = width;
        this.reached = reached;
    }

    public String bizTag() {
        return bizTag;
    }

    /** The period's date digits, such as {@code 20261204}. */
    public String period() {
        return period;
    }

    public int width() {
        return width;
    }

    /** The counter the call drew, the first beyond the width. */
    public long reached() {
        return reached;
    }
}
