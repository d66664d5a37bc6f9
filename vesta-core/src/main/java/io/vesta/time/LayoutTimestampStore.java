package io.vesta.time;

import io.vesta.InvalidSettingException;
import io.vesta.layout.IssuingLayout;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

/**
 * A store as the generator of one {@link IssuingLayout} sees it: {@link #save(long)} records the layout with the mark,
 * and {@link #load()} returns the mark that bounds every ID this layout could repeat, read from the marks of every
 * layout the store holds, or refuses to start.
 *
 * <p>What {@link #load()} makes of each stored mark (see {@link IssuingLayout} for why):
 * <ul>
 *   <li>another version, type or gen-method: nothing, its IDs differ in bits 60-63 from every ID of this layout;</li>
 *   <li>the same layout: the mark itself, as always (a clock behind it is the step-back policy's);</li>
 *   <li>the same version, type and gen-method under another epoch: the start, in this epoch, of the first time-field
 *       value after the last one that mark covers. An earlier epoch puts it in the past: the change is safe and the
 *       node starts. A later epoch can put it in the future; further ahead of the clock than the persist step (which a
 *       start waits out) the node would issue the old IDs' time fields again, and the start is refused with an
 *       {@link InvalidSettingException} naming the epoch setting, the old and new epochs and the time that collides;</li>
 *   <li>a mark of unknown layout (a bare number written by Vesta 0.1, or a store that keeps no layout): read as this
 *       layout's, which is what Vesta 0.1 did, with a warning; the first save replaces it with this layout's.</li>
 * </ul>
 * Opening and closing stay with the owner of the underlying store; those of the view do nothing.
 */
public final class LayoutTimestampStore implements TimestampStore {

    private static final System.Logger LOG = System.getLogger(LayoutTimestampStore.class.getName());

    private final TimestampStore store;
    private final IssuingLayout layout;
    private final TimeSource timeSource;
    private final long persistStepMillis;
    private final String epochSetting;

    /**
     * @param persistStep how far ahead of the clock a mark may lie and still be waited out at start
     * @param epochSetting the epoch's setting as the user spells it ({@code vesta.epoch}), for the refusal
     */
    public LayoutTimestampStore(TimestampStore store, IssuingLayout layout, TimeSource timeSource, Duration persistStep,
            String epochSetting) {
        this.store = store;
        this.layout = layout;
        this.timeSource = timeSource;
        this.persistStepMillis = persistStep.toMillis();
        this.epochSetting = epochSetting;
    }

    public IssuingLayout layout() {
        return layout;
    }

    /**
     * The mark this layout's generator must start after, from every mark of the store.
     * @throws InvalidSettingException if the epoch changed since IDs of this layout's version, type and gen-method were
     *         issued, so that this generator would issue their time fields again
     */
    @Override
    public OptionalLong load() {
        List<RestartMark> marks = store.loadAll();
        long now = timeSource.currentTimeMillis();
        OptionalLong highest = OptionalLong.empty();
        for (RestartMark mark : marks) {
            long bound;
            if (mark.layout() == null) {
                LOG.log(Level.WARNING, () -> "The restart mark " + Instant.ofEpochMilli(mark.millis()) + " in " + store
                        + " records no layout (written by Vesta 0.1 or a store that keeps none): it is read as written"
                        + " under the layout configured now (" + layout + "). If the epoch, type, version or gen-method"
                        + " changed since it was written, stop this node and restore them before it issues IDs.");
                bound = mark.millis();
            } else if (!layout.canRepeatIdsOf(mark.layout())) {
                continue;
            } else {
                bound = layout.markCovering(mark.layout(), mark.millis());
                if (!mark.layout().epoch().equals(layout.epoch()) && bound - now > persistStepMillis) {
                    throw refusal(mark, bound, now);
                }
            }
            if (highest.isEmpty() || bound > highest.getAsLong()) {
                highest = OptionalLong.of(bound);
            }
        }
        return highest;
    }

    private InvalidSettingException refusal(RestartMark mark, long bound, long now) {
        IssuingLayout old = mark.layout();
        long firstUnit = layout.unitOf(now);
        long lastUnit = old.lastUnitBefore(mark.millis());
        return new InvalidSettingException(epochSetting, layout.epoch(), old.epoch() + " (the epoch those IDs were"
                + " issued under) or an earlier instant, which never reaches back to their time fields; or this epoch"
                + " once the clock has passed " + Instant.ofEpochMilli(bound),
                "would repeat IDs: " + store + " records that IDs of " + old + " were issued until "
                + Instant.ofEpochMilli(mark.millis()) + ". Moved from " + old.epoch() + " to " + layout.epoch() + ", the"
                + " epoch makes the IDs this node would issue from now (" + Instant.ofEpochMilli(now) + ") until "
                + Instant.ofEpochMilli(bound) + " carry time fields " + firstUnit + " to " + lastUnit + ", which the old"
                + " epoch gave to " + Instant.ofEpochMilli(old.startOf(firstUnit)) + " until "
                + Instant.ofEpochMilli(mark.millis()) + ", when this node issued IDs with the same version, type and"
                + " gen-method bits");
    }

    /** Saves the mark under this view's layout. */
    @Override
    public void save(long epochMillis) {
        store.save(layout, epochMillis);
    }

    @Override
    public List<RestartMark> loadAll() {
        return store.loadAll();
    }

    @Override
    public void save(IssuingLayout layout, long epochMillis) {
        store.save(layout, epochMillis);
    }

    @Override
    public String toString() {
        return store.toString();
    }
}
