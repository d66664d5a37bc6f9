package io.vesta;

import io.vesta.layout.IdLayout;
import io.vesta.layout.IssuingLayout;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.sequence.TimeSeqGenerator;
import io.vesta.time.FileTimestampStore;
import io.vesta.time.LayoutTimestampStore;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * The generator of one block of an {@link EmbeddedIdService}: what changes together when the provider claims a new
 * block after a loss. {@code store} is the one it opened itself (a file of the time-store directory), null when it
 * writes to the service's.
 */
final class BlockEngine {

    final MachineIdGrant grant;
    final MachineIdBlock block;
    final int blockBits;
    final long constantBits;
    final TimeSeqGenerator generator;
    final MachineIdLease lease;
    final TimestampStore store;
    /** Whether this is the generator of the fallback block ({@code machine-id.fallback.value}). */
    final boolean fallback;
    /** When this generator was started, by the service's clock: the start of a spell on the block. */
    final Instant started;
    /** Set under the service's {@code switching} lock once the service moved on from this block. */
    boolean retired;

    BlockEngine(MachineIdGrant grant, MachineIdBlock block, long constantBits, TimeSeqGenerator generator,
            MachineIdLease lease, TimestampStore store, boolean fallback, Instant started) {
        this.grant = grant;
        this.fallback = fallback;
        this.started = started;
        this.block = block;
        this.blockBits = block.bits();
        this.constantBits = constantBits;
        this.generator = generator;
        this.lease = lease;
        this.store = store;
    }

    long id(long slot) {
        return IdLayout.fromSlot(slot, blockBits, constantBits);
    }

    /**
     * Opens the store that keeps a block's high-water mark; a store another process holds is refused with what it
     * means, two generators under one machine ID.
     */
    static void openStore(TimestampStore store, MachineIdBlock block) {
        try {
            store.open();
        } catch (IllegalStateException e) {
            throw new IllegalStateException("Cannot start the generator of " + block.describe() + ": "
                    + e.getMessage() + ". Two generators under one machine ID would issue the same IDs: give each"
                    + " process its own machine ID.", e);
        }
    }

    /**
     * Starts the generator of a block with the builder's settings: at build, and again after each regain. {@code store}
     * is the store given to the builder, shared by every block's generator; null with a directory or none.
     * {@code fallback} is the fallback block, or null without one.
     */
    record Factory(SequencerStrategy sequencer, TimeSource timeSource, IdLayout layout, IdType type, Instant epoch,
            Duration backwardWait, TimestampStore store, Path directory, Duration persistStep, GenMethod genMethod,
            long version, MachineIdProvider provider, String settingPrefix, MachineIdBlock fallback) {

        BlockEngine start(MachineIdGrant grant, MachineIdBlock block, MachineIdLease lease, OptionalLong notBefore) {
            TimestampStore own = store == null && directory != null
                    ? FileTimestampStore.forBlock(directory, type, block, genMethod, epoch) : null;
            if (own != null) {
                openStore(own, block);
            }
            TimestampStore marks = own != null ? own : store;
            try {
                // The generator sees the marks of every layout through its own: a change of epoch that would issue the
                // time fields of earlier IDs again is refused here, before anything is issued.
                TimestampStore layoutMarks = marks == null ? null : new LayoutTimestampStore(marks,
                        new IssuingLayout(version, type, genMethod, epoch), timeSource, persistStep, settingPrefix + "epoch");
                TimeSeqGenerator generator = TimeSeqGenerator.start(sequencer, timeSource, layout, epoch, backwardWait,
                        layoutMarks, persistStep, block, lease, notBefore, provider.describe());
                return new BlockEngine(grant, block, layout.constantBits(version, genMethod.code(), block.first()),
                        generator, lease, own, block.equals(fallback),
                        Instant.ofEpochMilli(timeSource.currentTimeMillis()));
            } catch (RuntimeException e) {
                if (own != null) {
                    try {
                        own.close();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw e;
            }
        }
    }
}
