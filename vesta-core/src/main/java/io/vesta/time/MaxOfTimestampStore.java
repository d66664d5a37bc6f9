package io.vesta.time;

import io.vesta.layout.IssuingLayout;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One high-water-mark store for several generators. Each generator writes through its own view; the store always
 * holds the highest of the views' latest marks. Writing each generator's mark straight to the one file would let
 * a quiet generator, or the exact mark one writes when it closes, overwrite a busier one's higher mark, and a
 * restart with the clock set back could then repeat the busier one's IDs. A central server's two generators
 * share one time-store file through it.
 */
public final class MaxOfTimestampStore {

    private final TimestampStore store;
    private final long[] marks;
    /** The layout each view last saved under, or null for a save without one. */
    private final IssuingLayout[] layouts;
    private long written = Long.MIN_VALUE;
    /** The mark last written for each layout's high bits. */
    private final Map<Long, Long> writtenByLayout = new HashMap<>();
    /** How many views are open: the store (and its lock) is taken by the first and given back by the last. */
    private int open;

    /**
     * @param store the store that holds the highest mark; opened by the first view opened, closed by the last closed
     * @param views how many views {@link #view(int)} hands out
     */
    public MaxOfTimestampStore(TimestampStore store, int views) {
        if (views < 1) {
            throw new IllegalArgumentException("views must be at least 1, was " + views);
        }
        this.store = store;
        this.marks = new long[views];
        this.layouts = new IssuingLayout[views];
        Arrays.fill(marks, Long.MIN_VALUE);
    }

    /** The store one generator writes through: view {@code index}, from 0 to {@code views - 1}. */
    public TimestampStore view(int index) {
        if (index < 0 || index >= marks.length) {
            throw new IllegalArgumentException("index must be in [0, " + (marks.length - 1) + "], was " + index);
        }
        return new TimestampStore() {

            private boolean viewOpen;

            @Override
            public void open() {
                synchronized (MaxOfTimestampStore.this) {
                    if (viewOpen) {
                        throw new IllegalStateException("view " + index + " of " + store + " is already open");
                    }
                    if (open == 0) {
                        store.open();
                    }
                    open++;
                    viewOpen = true;
                }
            }

            @Override
            public void close() {
                synchronized (MaxOfTimestampStore.this) {
                    if (!viewOpen) {
                        return;
                    }
                    viewOpen = false;
                    if (--open == 0) {
                        store.close();
                    }
                }
            }

            @Override
            public OptionalLong load() {
                return store.load();
            }

            @Override
            public List<RestartMark> loadAll() {
                return store.loadAll();
            }

            @Override
            public void save(long epochMillis) {
                MaxOfTimestampStore.this.save(index, epochMillis);
            }

            @Override
            public void save(IssuingLayout layout, long epochMillis) {
                MaxOfTimestampStore.this.save(index, layout, epochMillis);
            }

            @Override
            public String toString() {
                return store + " (shared, view " + index + ")";
            }
        };
    }

    /**
     * The highest mark of the views that saved under a layout with {@code layout}'s high bits: the store keeps one mark
     * per such layout, and views of layouts that never make the same ID (a server's two gen-methods) each keep their own.
     */
    private synchronized void save(int index, IssuingLayout layout, long mark) {
        marks[index] = mark;
        layouts[index] = layout;
        long highest = Long.MIN_VALUE;
        for (int i = 0; i < marks.length; i++) {
            if (layouts[i] != null && layouts[i].canRepeatIdsOf(layout)) {
                highest = Math.max(highest, marks[i]);
            }
        }
        Long last = writtenByLayout.get(layout.highBits());
        if (last == null || last != highest) {
            store.save(layout, highest);
            writtenByLayout.put(layout.highBits(), highest);
        }
    }

    private synchronized void save(int index, long mark) {
        marks[index] = mark;
        layouts[index] = null;
        long highest = Arrays.stream(marks).max().orElseThrow();
        if (highest != written) {
            store.save(highest);
            written = highest;
        }
    }
}
