package io.vesta;

import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.sequence.GeneratorCounters;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The block an {@link EmbeddedIdService} issues under now, and the move to the next one: with a leased provider that
 * claims a block again by itself after it lost its own ({@link MachineIdProvider#grant()}), the generator of the lost
 * block is closed and one is started on the new block. Holds, too, what the generators of lost blocks counted, so the
 * service's counters cover its whole life, and whether the service was closed, which ends every move.
 */
final class CurrentBlock {

    private static final System.Logger LOG = System.getLogger(EmbeddedIdService.class.getName());

    /** How many blocks one call follows when each is left in turn while the call is made on it. */
    static final int MAX_MOVES_PER_CALL = 8;

    private final BlockEngine.Factory engines;
    private final MachineIdProvider provider;
    /** Guards moving to a new block and closing; taken on the path of an ID only once the current block refused it. */
    private final Object switching = new Object();
    /** The generator IDs come from now; replaced whole when the provider claimed a new block. */
    private volatile BlockEngine engine;
    private volatile boolean closed;
    /** Why the last move to a new block failed, or null. */
    private volatile String switchFailure;
    /** What the generators of lost blocks did, so the counters cover the service's whole life. */
    private volatile GeneratorCounters retired = GeneratorCounters.NONE;
    /** What the generators of earlier fallback periods issued. */
    private volatile long retiredFallbackIssued;
    /**
     * Under {@code switching}: for each block this service left (by its first machine ID), the end of the last time unit
     * its generator issued in. A block issued under again (a lease renewed after a spell on the fallback, the fallback
     * used a second time) starts after it, whatever the time store and the provider know: the sequence of the new
     * generator is fresh, so the same unit again would repeat IDs.
     */
    private final Map<Long, Long> issuedUntil = new HashMap<>();

    CurrentBlock(BlockEngine.Factory engines, BlockEngine first) {
        this.engines = engines;
        this.provider = engines.provider();
        this.engine = first;
    }

    /** The generator IDs come from now; read it once per call, so that a call never mixes two blocks. */
    BlockEngine engine() {
        return engine;
    }

    /** How many IDs were issued under the fallback block, in every spell on it. */
    long fallbackIssued() {
        BlockEngine now = engine;
        return retiredFallbackIssued + (now.fallback && !now.retired ? now.generator.issued() : 0);
    }

    /** When the service moved to its fallback block, while IDs are issued under it; null otherwise. */
    Instant onFallbackSince() {
        BlockEngine now = engine;
        return now.fallback && !now.retired ? now.started : null;
    }

    /** The counts of the lost blocks' generators and of the current one. */
    GeneratorCounters counters() {
        return retired.plus(engine.generator.counters());
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Ends every move to a new block: the generator to close, that of the block IDs came from last, or null when this
     * was closed before.
     */
    BlockEngine close() {
        synchronized (switching) {
            if (closed) {
                return null;
            }
            closed = true;
            return engine;
        }
    }

    /**
     * Moves to the provider's newest grant when it is newer than the one IDs come from: closes the generator of the
     * lost block (no ID of it after this), then starts one on the new block. Runs on the provider's regain thread and,
     * should that not have happened yet, in a call that the lost block refused. Returns the engine to use.
     */
    private BlockEngine moveToNewestGrant() {
        synchronized (switching) {
            BlockEngine current = engine;
            if (closed || current.grant == null) {
                return current;
            }
            MachineIdGrant newest = provider.grant().orElse(null);
            if (newest == null || newest.number() <= current.grant.number()) {
                return current;
            }
            if (!current.retired) {
                current.retired = true;
                try {
                    current.generator.close();
                } finally {
                    retired = retired.plus(current.generator.counters());
                    if (current.fallback) {
                        retiredFallbackIssued += current.generator.issued();
                    }
                    Instant last = current.generator.lastTime();
                    if (last != null) {
                        // Read after close(): nothing is issued under the old generator any more.
                        issuedUntil.merge(current.block.first(), last.toEpochMilli() + 1, Math::max);
                    }
                    if (current.store != null) {
                        current.store.close();
                    }
                }
            }
            BlockEngine next;
            try {
                next = engines.start(newest, newest.block(), newest.lease(), after(newest));
            } catch (RuntimeException e) {
                switchFailure = "cannot start issuing under " + newest.block().describe() + ", claimed after "
                        + current.block.describe() + " was lost: " + e.getMessage();
                LOG.log(Level.ERROR, "The ID generator " + switchFailure, e);
                throw e;
            }
            switchFailure = null;
            engine = next;
            LOG.log(Level.WARNING, () -> "IDs are issued under " + next.block.describe() + " from now on ("
                    + provider.describe() + "), after " + current.block.describe() + " was lost"
                    + (newest.notBefore().isPresent() ? "; they start after "
                            + Instant.ofEpochMilli(newest.notBefore().getAsLong()) : ""));
            return next;
        }
    }

    /**
     * The mark a generator on {@code grant}'s block starts after: the grant's own (a previous holder's), and the end of
     * the last unit this service issued under the block before, whichever is later.
     */
    private OptionalLong after(MachineIdGrant grant) {
        Long own = issuedUntil.get(grant.block().first());
        if (own == null) {
            return grant.notBefore();
        }
        return OptionalLong.of(grant.notBefore().isPresent() ? Math.max(own, grant.notBefore().getAsLong()) : own);
    }

    /** The provider published a new grant: move to it now, so the node is ready again before the next call. */
    void moveAfterRegain() {
        try {
            moveToNewestGrant();
        } catch (RuntimeException e) {
            // Logged with the failure; the next call that the lost block refuses tries again.
        }
    }

    /**
     * Makes a call that {@code refused} refused again on the newest block; and again, on a newer block still, each time
     * the block it was made on is left before the call is through (a move on another thread: the provider's regain or
     * check thread moved the node on, and closed that block's generator or ended its lease). Without a newer block, the
     * refusal of the last block tried; after {@link #MAX_MOVES_PER_CALL} moves, a {@link MachineIdUnavailableException}.
     */
    <T> T retry(BlockEngine refused, IllegalStateException refusal, Function<BlockEngine, T> call) {
        BlockEngine engine = refused;
        IllegalStateException last = refusal;
        for (int moves = 1; ; moves++) {
            BlockEngine next = retryAfter(engine, last);
            try {
                return call.apply(next);
            } catch (IllegalStateException again) {
                if (moves >= MAX_MOVES_PER_CALL) {
                    throw new MachineIdUnavailableException("No ID is issued: the machine ID this node issues under"
                            + " changed " + moves + " times during one call; the last refusal: " + again.getMessage(), again);
                }
                engine = next;
                last = again;
            }
        }
    }

    /**
     * After {@code current} refused a call: the generator of a newer block to try the call once more on, or the
     * refusal itself.
     */
    private BlockEngine retryAfter(BlockEngine current, RuntimeException refusal) {
        if (closed || current.grant == null) {
            throw refusal;
        }
        BlockEngine next;
        try {
            next = moveToNewestGrant();
        } catch (RuntimeException e) {
            refusal.addSuppressed(e);
            throw refusal;
        }
        if (next != current) {
            return next;
        }
        String failure = switchFailure;
        if (current.retired && failure != null) {
            throw new MachineIdUnavailableException("No ID is issued: this node " + failure, refusal);
        }
        throw refusal;
    }
}
