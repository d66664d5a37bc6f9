package io.vesta;

import io.vesta.layout.IdCodec;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.sequence.GeneratorCounters;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.sequence.TimeSeqGenerator;
import io.vesta.time.TimestampStore;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Generates IDs in this process under one machine ID, or under a block of consecutive machine IDs
 * ({@link EmbeddedIdServiceBuilder#machineIdBlockSize(int)}) for a multiple of one ID's ceiling. Build it with
 * {@link #builder()}; close it when the node stops, to give back the machine IDs and write the exact high-water mark.
 *
 * <p>With a block of {@code k} IDs, one counter runs over {@code k} slots per sequence number: IDs come in the order
 * (time, seq, machine ID), so they still increase strictly, and every one carries a machine ID of the block.
 *
 * <p>With a leased provider that claims a block again by itself after it lost its own ({@link MachineIdProvider#grant()}),
 * the service moves to the new block: the generator of the lost block is closed (its lease stays revoked, so it issued
 * nothing after the lease end the store's takeover relied on), and a new one starts on the new block, its sequence
 * fresh and its IDs after the new block's {@code notBefore}. A call reads the generator once: {@link #genIds} returns a
 * whole batch of one block or throws, never a mix; a call refused by the lost block is tried once more on the new one.
 */
public final class EmbeddedIdService extends LayoutIdService implements AutoCloseable {

    /** The type of IDs when none is set. */
    public static final IdType DEFAULT_TYPE = IdType.MAX_PEAK;
    /** How IDs are published when none is set: embedded, generated in this process. */
    public static final GenMethod DEFAULT_GEN_METHOD = GenMethod.EMBEDDED;
    /** The version of IDs when none is set: 0, normal; 1 marks the extension/migration window. */
    public static final long DEFAULT_VERSION = 0;
    /** How the unit/seq state is guarded when no strategy is set: lock-free compare-and-set. */
    public static final SequencerStrategy DEFAULT_SEQUENCER = SequencerStrategy.CAS;
    /** How many consecutive machine IDs a node holds when no block size is set: one. */
    public static final int DEFAULT_MACHINE_ID_BLOCK_SIZE = 1;
    /** The default wait for a step back of the clock with {@link IdType#MIN_GRANULARITY}. */
    public static final Duration DEFAULT_MAX_BACKWARD_WAIT_MIN_GRANULARITY = Duration.ofMillis(5);
    /** The default wait for a step back of the clock with {@link IdType#MAX_PEAK}. */
    public static final Duration DEFAULT_MAX_BACKWARD_WAIT_MAX_PEAK = Duration.ofSeconds(1);
    /** The longest step back a node may be configured to wait out. */
    public static final Duration MAX_BACKWARD_WAIT_LIMIT = Duration.ofMinutes(1);
    /** How far ahead of issued time the high-water mark is written, by default. */
    public static final Duration DEFAULT_PERSIST_STEP = Duration.ofSeconds(3);
    /** The shortest persist step: the mark is kept in whole milliseconds. */
    public static final Duration MIN_PERSIST_STEP = Duration.ofMillis(1);
    /**
     * The longest persist step: a restart right after a crash waits out up to one step, and a clock set back by
     * less than one step is waited out at start.
     */
    public static final Duration MAX_PERSIST_STEP = Duration.ofHours(1);

    /** Under this much time left before the time field runs out, {@link EmbeddedIdServiceBuilder#build()} warns. */
    public static final Duration TIME_REMAINING_WARNING = Duration.ofDays(365);

    private final IdType type;
    private final GenMethod genMethod;
    private final long version;
    private final MachineIdProvider machineIdProvider;
    /** The store given to the builder, shared by every block's generator; null with a directory or none. */
    private final TimestampStore timestampStore;
    private final BlockEngine.Factory engines;
    /** The generator IDs come from now, and the move to the next block after a loss. */
    private final CurrentBlock current;

    /** A service over the first block's generator, with the settings {@code engines} starts every block's with. */
    EmbeddedIdService(BlockEngine.Factory engines, BlockEngine engine) {
        super(engines.version(), engines.type(), engines.genMethod(), new IdCodec(engines.epoch()));
        this.type = engines.type();
        this.genMethod = engines.genMethod();
        this.version = engines.version();
        this.machineIdProvider = engines.provider();
        this.engines = engines;
        this.current = new CurrentBlock(engines, engine);
        this.timestampStore = engines.store();
    }

    /** A builder with every setting at its default, except the machine ID, which has none. */
    public static EmbeddedIdServiceBuilder builder() {
        return new EmbeddedIdServiceBuilder();
    }

    /** The wait for a step back of the clock that {@code type} gets unless one is set. */
    public static Duration defaultMaxBackwardWait(IdType type) {
        return type == IdType.MIN_GRANULARITY ? DEFAULT_MAX_BACKWARD_WAIT_MIN_GRANULARITY : DEFAULT_MAX_BACKWARD_WAIT_MAX_PEAK;
    }

    /** The provider published a new grant: move to it now, so the node is ready again before the next call. */
    void moveAfterRegain() {
        current.moveAfterRegain();
    }

    @Override
    public long genId() {
        BlockEngine engine = current.engine();
        try {
            return engine.id(engine.generator.next());
        } catch (IllegalStateException refusal) {
            // A lost block's MachineIdUnavailableException, or its generator closed by a move to a new block.
            return current.retry(engine, refusal, next -> next.id(next.generator.next()));
        }
    }

    /** A batch from one block: refused part-way by a lost block, it is made again whole on the new one. */
    @Override
    public long[] genIds(int count) {
        if (count < 1 || count > MAX_BATCH) {
            throw new IllegalArgumentException("count must be in [1, " + MAX_BATCH + "], was " + count);
        }
        long[] ids = new long[count];
        BlockEngine engine = current.engine();
        try {
            fill(engine, ids);
        } catch (IllegalStateException refusal) {
            // The IDs filled so far were never handed out; none of them is returned with another block's.
            current.retry(engine, refusal, next -> {
                fill(next, ids);
                return ids;
            });
        }
        return ids;
    }

    private static void fill(BlockEngine engine, long[] ids) {
        TimeSeqGenerator generator = engine.generator;
        int count = ids.length;
        int filled = 0;
        while (filled < count) {
            int wanted = count - filled;
            long first = generator.reserve(wanted);
            int granted = generator.granted(first, wanted);
            for (int i = 0; i < granted; i++) {
                ids[filled++] = engine.id(first + i);
            }
        }
    }

    /** Made with this node's first machine ID ({@link #machineId()}), gen-method, type and version. */
    @Override
    public long makeId(long time, long seq) {
        return makeId(time, seq, machineId());
    }

    public IdType type() {
        return type;
    }

    /** The machine ID this node issues under now (it changes when a lost one is replaced); with a block, its first. */
    public long machineId() {
        return current.engine().block.first();
    }

    /** The machine IDs this node issues under now: a block of one unless a block size was set. */
    public MachineIdBlock machineIdBlock() {
        return current.engine().block;
    }

    /**
     * The fallback block ({@link EmbeddedIdServiceBuilder#machineIdFallback(Long)}), or null without one: issued under
     * while the store of a leased provider cannot give this node a block.
     */
    public MachineIdBlock machineIdFallback() {
        return engines.fallback();
    }

    /** Whether IDs come from the fallback block now. */
    public boolean onFallback() {
        return current.engine().fallback;
    }

    /**
     * When this service started issuing under its fallback block, by its clock, while it does; empty when IDs come from
     * a leased block or there is no fallback.
     */
    public Optional<Instant> onFallbackSince() {
        return Optional.ofNullable(current.onFallbackSince());
    }

    /** How many IDs this service issued under its fallback block, in every spell on it. */
    public long fallbackIdsIssued() {
        return current.fallbackIssued();
    }

    /** Where the machine ID came from, as the provider describes it. */
    public String machineIdSource() {
        return machineIdProvider.describe();
    }

    public GenMethod genMethod() {
        return genMethod;
    }

    public long version() {
        return version;
    }

    public Instant epoch() {
        return codec().epoch();
    }

    /**
     * The last instant the time field can hold with this type and epoch (both {@code MAX_PEAK} and {@code MIN_GRANULARITY}
     * end in 2049 with the default epoch): after it this service issues no ID.
     */
    public Instant timeFieldEnd() {
        return codec().lastRepresentable(type);
    }

    /** How long the clock has until the time field runs out ({@link #timeFieldEnd()}); zero once it has. */
    public Duration timeRemaining() {
        long left = timeFieldEnd().toEpochMilli() + 1 - engines.timeSource().currentTimeMillis();
        return Duration.ofMillis(Math.max(0, left));
    }

    public SequencerStrategy sequencerStrategy() {
        return current.engine().generator.strategy();
    }

    /**
     * What the generators of this service counted since it was built, under every block it held: the lost blocks'
     * counts kept when it moved on, plus the current generator's.
     */
    public GeneratorCounters counters() {
        return current.counters();
    }

    /** How many IDs this service has issued since it was built, under every block it held. */
    public long idsIssued() {
        return counters().issued();
    }

    /** The start of the time unit of the last ID issued under the current block, or null before the first. */
    public Instant lastIssuedTime() {
        return current.engine().generator.lastTime();
    }

    /** How many times a used-up unit made a caller wait for the next one. */
    public long exhaustedWaits() {
        return counters().exhaustedWaits();
    }

    /** The total time callers spent waiting for a new unit after one was used up. */
    public Duration exhaustedWaitTime() {
        return counters().exhaustedWaitTime();
    }

    /** How many times the clock was seen behind the last issued unit. */
    public long clockBackwardSteps() {
        return counters().clockBackwardSteps();
    }

    /** How far the clock is now behind the last issued unit; zero when it is not. */
    public Duration clockBehind() {
        return current.engine().generator.clockBehind();
    }

    /** The largest step back of the clock that is waited out rather than refused. */
    public Duration maxBackwardWait() {
        return current.engine().generator.maxBackwardWait();
    }

    /**
     * Why a call would be refused for the clock now (a step back behind issued IDs, or a clock that has not reached
     * the time reserved before this service started), or empty when it would not.
     */
    public Optional<ClockMovedBackwardsException> clockRefusal() {
        return Optional.ofNullable(current.engine().generator.clockRefusal());
    }

    /** Whether an ID can be issued now without a refusal for the clock. */
    public boolean clockHealthy() {
        return clockBehind().compareTo(maxBackwardWait()) <= 0;
    }

    /**
     * The lease on the machine IDs IDs come from now; {@link MachineIdLease#forever()} for fixed IDs. After a loss it
     * stays the lost one's (not held) until the service has moved to the block the provider claimed next.
     */
    public MachineIdLease machineIdLease() {
        return current.engine().lease;
    }

    /** Where the high-water mark of the current block is kept, or null when it is not persisted. */
    public TimestampStore timestampStore() {
        TimestampStore own = current.engine().store;
        return own != null ? own : timestampStore;
    }

    /** Whether {@link #close()} was called: the service then issues no ID. */
    public boolean isClosed() {
        return current.isClosed();
    }

    /**
     * Stops issuing (every later {@code genId} throws {@link IllegalStateException}), writes the exact high-water
     * mark, gives the timestamp store back and releases the machine ID. Call after the last ID; safe to call
     * more than once.
     */
    @Override
    public void close() {
        BlockEngine last = current.close();
        if (last == null) {
            return;
        }
        try {
            last.generator.close();
        } finally {
            try {
                if (last.store != null && !last.retired) {
                    last.store.close();
                }
                if (timestampStore != null) {
                    timestampStore.close();
                }
            } finally {
                machineIdProvider.close();
            }
        }
    }

    @Override
    public String toString() {
        BlockEngine engine = current.engine();
        return "EmbeddedIdService[" + type + ", " + engine.block.describe() + " (" + machineIdSource() + "), "
                + genMethod + ", version " + version + ", epoch " + codec().epoch() + ", " + engine.generator.strategy() + "]";
    }
}
