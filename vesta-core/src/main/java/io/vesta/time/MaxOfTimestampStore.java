package io.vesta.time;

import java.util.Arrays;
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
    private long written = Long.MIN_VALUE;
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
            public void save(long epochMillis) {
                MaxOfTimestampStore.this.save(index, epochMillis);
            }

            @Override
            public String toString() {
                return store + " (shared, view " + index + ")";
            }
        };
    }

    private synchronized void save(int index, long mark) {
        marks[index] = mark;
        long highest = Arrays.stream(marks).max().orElseThrow();
        if (highest != written) {
            store.save(highest);
            written = highest;
        }
    }
}
