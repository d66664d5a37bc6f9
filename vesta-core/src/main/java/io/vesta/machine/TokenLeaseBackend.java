package io.vesta.machine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.NavigableMap;

/**
 * A {@link RecordLeaseBackend} whose records are {@link LeaseEntry} values fenced by a random token per claim, as the
 * key-value stores keep them: the entries a holder writes, whether an entry is still under a fence, the entries an
 * operator's end writes, and a release as a renewal to now.
 *
 * @param <F> what fences this node's writes: at least the claim's token and generation
 * @param <S> one read of the store, for a claim
 */
public abstract class TokenLeaseBackend<F extends TokenLeaseBackend.Fence, S>
        extends RecordLeaseBackend<F, LeaseEntry, S> {

    /** The token of a claim and the generation it claimed. */
    public interface Fence {
        String token();

        long generation();
    }

    protected TokenLeaseBackend(LeaseSettings settings, String strategy, String place, String record, String records,
            System.Logger log) {
        super(settings, strategy, place, record, records, log);
    }

    /** The entries of {@code held}'s block as this node writes them, with {@code expiry} and {@code highWater}. */
    protected List<LeaseEntry> entries(LeaseClaim<F> held, long expiry, long highWater) {
        return LeaseEntry.block(held.block(), held.fence().generation(), expiry, highWater, held.fence().token(),
                owner);
    }

    @Override
    protected boolean carries(LeaseEntry entry, F fence) {
        return entry.token().equals(fence.token());
    }

    @Override
    protected long generation(F fence) {
        return fence.generation();
    }

    /** Whether every entry of {@code held}'s block in {@code entries} still carries its token and generation. */
    protected boolean carriesAll(NavigableMap<Long, LeaseEntry> entries, LeaseClaim<F> held) {
        for (long id = held.block().first(); id <= held.block().last(); id++) {
            LeaseEntry entry = entries.get(id);
            if (entry == null || !carries(entry, held.fence()) || entry.generation() != held.fence().generation()) {
                return false;
            }
        }
        return true;
    }

    /**
     * What an operator's end of the lease under {@code token} writes at {@code now}: each of its live entries with
     * expiry now, the next generation and {@code newToken}, so that its holder's next write matches nothing.
     */
    protected static List<LeaseEntry> ending(Collection<LeaseEntry> entries, String token, long now, String newToken) {
        List<LeaseEntry> ended = new ArrayList<>();
        for (LeaseEntry entry : entries) {
            if (entry.token().equals(token) && entry.leaseExpiry() > now) {
                ended.add(entry.ended(now, newToken));
            }
        }
        return ended;
    }

    /** A renewal to {@code now}: if the entries were taken over meanwhile, the fence makes it match nothing. */
    @Override
    public boolean release(LeaseClaim<F> held, long now, long highWater) throws Exception {
        return renew(held, now, highWater).fence() != null;
    }
}
