package io.vesta.time;

import io.vesta.layout.IssuingLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Several stores as one, for a generator that issues under several machine IDs at once (a block): it opens all of
 * them or none, loads the highest mark any of them holds, and saves each mark to every one, so each keeps a mark
 * that bounds every ID issued under its machine ID.
 */
final class AllOfTimestampStore implements TimestampStore {

    private final List<TimestampStore> stores;

    AllOfTimestampStore(List<TimestampStore> stores) {
        if (stores.isEmpty()) {
            throw new IllegalArgumentException("stores must not be empty");
        }
        this.stores = List.copyOf(stores);
    }

    /** Opens every store, or none: a store that cannot be opened closes those opened before it. */
    @Override
    public void open() {
        for (int i = 0; i < stores.size(); i++) {
            try {
                stores.get(i).open();
            } catch (RuntimeException e) {
                for (int j = i - 1; j >= 0; j--) {
                    try {
                        stores.get(j).close();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
        }
    }

    @Override
    public OptionalLong load() {
        OptionalLong highest = OptionalLong.empty();
        for (TimestampStore store : stores) {
            OptionalLong mark = store.load();
            if (mark.isPresent() && (highest.isEmpty() || mark.getAsLong() > highest.getAsLong())) {
                highest = mark;
            }
        }
        return highest;
    }

    /** The marks of every store. */
    @Override
    public List<RestartMark> loadAll() {
        List<RestartMark> marks = new ArrayList<>();
        for (TimestampStore store : stores) {
            marks.addAll(store.loadAll());
        }
        return marks;
    }

    /** Saves to every store, as {@link #save(long)} does. */
    @Override
    public void save(IssuingLayout layout, long epochMillis) {
        for (TimestampStore store : stores) {
            store.save(layout, epochMillis);
        }
    }

    /** Saves to every store; the mark holds once all have it, and an ID beyond the old one waits for that. */
    @Override
    public void save(long epochMillis) {
        for (TimestampStore store : stores) {
            store.save(epochMillis);
        }
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (TimestampStore store : stores) {
            try {
                store.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return stores.size() == 1 ? stores.get(0).toString() : stores.get(0) + " and " + (stores.size() - 1) + " more";
    }
}
