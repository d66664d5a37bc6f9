package io.vesta;

import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.layout.IssuingLayout;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdOutOfRangeException;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.PropertyMachineIdProvider;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.sequence.TimeSeqGenerator;
import io.vesta.time.FileTimestampStore;
import io.vesta.time.LayoutTimestampStore;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Generates IDs in this process under one machine ID, or under a block of consecutive machine IDs
 * ({@link Builder#machineIdBlockSize(int)}) for a multiple of one ID's ceiling. Build it with {@link #builder()};
 * close it when the node stops, to give back the machine IDs and write the exact high-water mark.
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
public final class EmbeddedIdService implements IdService, AutoCloseable {

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

    /** Under this much time left before the time field runs out, {@link Builder#build()} logs a warning. */
    public static final Duration TIME_REMAINING_WARNING = Duration.ofDays(365);

    private static final System.Logger LOG = System.getLogger(EmbeddedIdService.class.getName());

    private final IdType type;
    private final IdCodec codec;
    private final GenMethod genMethod;
    private final long version;
    private final MachineIdProvider machineIdProvider;
    /** The store given to the builder, shared by every block's generator; null with a directory or none. */
    private final TimestampStore timestampStore;
    private final Engines engines;
    /** Guards moving to a new block and closing; taken on the path of an ID only once the current block refused it. */
    private final Object switching = new Object();
    /** The generator IDs come from now; replaced whole when the provider claimed a new block. */
    private volatile Engine engine;
    private volatile boolean closed;
    /** Why the last move to a new block failed, or null. */
    private volatile String switchFailure;
    /** What the generators of lost blocks did, so the counters cover the service's whole life. */
    private volatile long retiredIssued;
    private volatile long retiredExhaustedWaits;
    private volatile long retiredExhaustedWaitNanos;
    private volatile long retiredBackwardSteps;

    private EmbeddedIdService(Builder builder, MachineIdProvider machineIdProvider, Engines engines, Engine engine,
            TimestampStore timestampStore) {
        this.type = builder.type;
        this.codec = new IdCodec(builder.epoch);
        this.genMethod = builder.genMethod;
        this.version = builder.version;
        this.machineIdProvider = machineIdProvider;
        this.engines = engines;
        this.engine = engine;
        this.timestampStore = timestampStore;
    }

    /**
     * The generator of one block: what changes together when the provider claims a new block after a loss. {@code
     * store} is the one it opened itself (a file of the time-store directory), null when it writes to the service's.
     */
    private static final class Engine {
        final MachineIdGrant grant;
        final MachineIdBlock block;
        final int blockBits;
        final long constantBits;
        final TimeSeqGenerator generator;
        final MachineIdLease lease;
        final TimestampStore store;
        /** Set under {@code switching} once the service moved on from this block. */
        boolean retired;

        Engine(MachineIdGrant grant, MachineIdBlock block, long constantBits, TimeSeqGenerator generator,
                MachineIdLease lease, TimestampStore store) {
            this.grant = grant;
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
    }

    /** Starts the generator of a block with the builder's settings: at build, and again after each regain. */
    private record Engines(SequencerStrategy sequencer, TimeSource timeSource, IdLayout layout, IdType type, Instant epoch,
            Duration backwardWait, TimestampStore store, Path directory, Duration persistStep, GenMethod genMethod,
            long version, MachineIdProvider provider, String settingPrefix) {

        Engine start(MachineIdGrant grant, MachineIdBlock block, MachineIdLease lease, OptionalLong notBefore) {
            TimestampStore own = store == null && directory != null
                    ? FileTimestampStore.forBlock(directory, type, block, genMethod, epoch) : null;
            if (own != null) {
                Builder.openStore(own, block);
            }
            TimestampStore marks = own != null ? own : store;
            try {
                // The generator sees the marks of every layout through its own: a change of epoch that would issue the
                // time fields of earlier IDs again is refused here, before anything is issued.
                TimestampStore layoutMarks = marks == null ? null : new LayoutTimestampStore(marks,
                        new IssuingLayout(version, type, genMethod, epoch), timeSource, persistStep, settingPrefix + "epoch");
                TimeSeqGenerator generator = TimeSeqGenerator.start(sequencer, timeSource, layout, epoch, backwardWait,
                        layoutMarks, persistStep, block, lease, notBefore, provider.describe());
                return new Engine(grant, block, layout.constantBits(version, genMethod.code(), block.first()), generator,
                        lease, own);
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

    /**
     * Moves to the provider's newest grant when it is newer than the one IDs come from: closes the generator of the
     * lost block (no ID of it after this), then starts one on the new block. Runs on the provider's regain thread and,
     * should that not have happened yet, in a call that the lost block refused. Returns the engine to use.
     */
    private Engine moveToNewestGrant() {
        synchronized (switching) {
            Engine current = engine;
            if (closed || current.grant == null) {
                return current;
            }
            MachineIdGrant newest = machineIdProvider.grant().orElse(null);
            if (newest == null || newest.number() <= current.grant.number()) {
                return current;
            }
            if (!current.retired) {
                current.retired = true;
                try {
                    current.generator.close();
                } finally {
                    retiredIssued += current.generator.issued();
                    retiredExhaustedWaits += current.generator.exhaustedWaits();
                    retiredExhaustedWaitNanos += current.generator.exhaustedWaitTime().toNanos();
                    retiredBackwardSteps += current.generator.clockBackwardSteps();
                    if (current.store != null) {
                        current.store.close();
                    }
                }
            }
            Engine next;
            try {
                next = engines.start(newest, newest.block(), newest.lease(), newest.notBefore());
            } catch (RuntimeException e) {
                switchFailure = "cannot start issuing under " + newest.block().describe() + ", claimed after "
                        + current.block.describe() + " was lost: " + e.getMessage();
                LOG.log(Level.ERROR, "The ID generator " + switchFailure, e);
                throw e;
            }
            switchFailure = null;
            engine = next;
            LOG.log(Level.WARNING, () -> "IDs are issued under " + next.block.describe() + " from now on ("
                    + machineIdProvider.describe() + "), after " + current.block.describe() + " was lost"
                    + (newest.notBefore().isPresent() ? "; they start after "
                            + Instant.ofEpochMilli(newest.notBefore().getAsLong()) : ""));
            return next;
        }
    }

    /** The provider published a new grant: move to it now, so the node is ready again before the next call. */
    private void moveAfterRegain() {
        try {
            moveToNewestGrant();
        } catch (RuntimeException e) {
            // Logged with the failure; the next call that the lost block refuses tries again.
        }
    }

    /**
     * After {@code current} refused a call: the generator of a newer block to try the call once more on, or the
     * refusal itself.
     */
    private Engine retryAfter(Engine current, RuntimeException refusal) {
        if (closed || current.grant == null) {
            throw refusal;
        }
        Engine next;
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

    /** A builder with every setting at its default, except the machine ID, which has none. */
    public static Builder builder() {
        return new Builder();
    }

    /** The wait for a step back of the clock that {@code type} gets unless one is set. */
    public static Duration defaultMaxBackwardWait(IdType type) {
        return type == IdType.MIN_GRANULARITY ? DEFAULT_MAX_BACKWARD_WAIT_MIN_GRANULARITY : DEFAULT_MAX_BACKWARD_WAIT_MAX_PEAK;
    }

    @Override
    public long genId() {
        Engine current = engine;
        try {
            return current.id(current.generator.next());
        } catch (IllegalStateException refusal) {
            // A lost block's MachineIdUnavailableException, or its generator closed by a move to a new block.
            Engine next = retryAfter(current, refusal);
            return next.id(next.generator.next());
        }
    }

    /** A batch from one block: refused part-way by a lost block, it is made again whole on the new one. */
    @Override
    public long[] genIds(int count) {
        if (count < 1 || count > MAX_BATCH) {
            throw new IllegalArgumentException("count must be in [1, " + MAX_BATCH + "], was " + count);
        }
        long[] ids = new long[count];
        Engine current = engine;
        try {
            fill(current, ids);
        } catch (IllegalStateException refusal) {
            // The IDs filled so far were never handed out; none of them is returned with another block's.
            fill(retryAfter(current, refusal), ids);
        }
        return ids;
    }

    private static void fill(Engine engine, long[] ids) {
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

    @Override
    public Id expId(long id) {
        return codec.expId(id);
    }

    @Override
    public Instant transTime(long time) {
        return codec.transTime(type, time);
    }

    /** Decoded with this service's codec, so the instant is read in the ID's own type. */
    @Override
    public DecodedId decode(long id) {
        return DecodedId.of(id, codec);
    }

    /** Made with this node's first machine ID ({@link #machineId()}), gen-method, type and version. */
    @Override
    public long makeId(long time, long seq) {
        return makeId(version, type.code(), genMethod.code(), time, seq, machineId());
    }

    @Override
    public long makeId(long time, long seq, long machine) {
        return makeId(version, type.code(), genMethod.code(), time, seq, machine);
    }

    @Override
    public long makeId(long genMethod, long time, long seq, long machine) {
        return makeId(version, type.code(), genMethod, time, seq, machine);
    }

    @Override
    public long makeId(long type, long genMethod, long time, long seq, long machine) {
        return makeId(version, type, genMethod, time, seq, machine);
    }

    @Override
    public long makeId(long version, long type, long genMethod, long time, long seq, long machine) {
        return codec.makeId(version, type, genMethod, time, seq, machine);
    }

    public IdType type() {
        return type;
    }

    /** The machine ID this node issues under now (it changes when a lost one is replaced); with a block, its first. */
    public long machineId() {
        return engine.block.first();
    }

    /** The machine IDs this node issues under now: a block of one unless a block size was set. */
    public MachineIdBlock machineIdBlock() {
        return engine.block;
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
        return codec.epoch();
    }

    public IdCodec codec() {
        return codec;
    }

    /**
     * The last instant the time field can hold with this type and epoch (both {@code MAX_PEAK} and {@code MIN_GRANULARITY}
     * end in 2049 with the default epoch): after it this service issues no ID.
     */
    public Instant timeFieldEnd() {
        return codec.lastRepresentable(type);
    }

    /** How long the clock has until the time field runs out ({@link #timeFieldEnd()}); zero once it has. */
    public Duration timeRemaining() {
        long left = timeFieldEnd().toEpochMilli() + 1 - engines.timeSource().currentTimeMillis();
        return Duration.ofMillis(Math.max(0, left));
    }

    public SequencerStrategy sequencerStrategy() {
        return engine.generator.strategy();
    }

    /** How many IDs this service has issued since it was built, under every block it held. */
    public long idsIssued() {
        return retiredIssued + engine.generator.issued();
    }

    /** The start of the time unit of the last ID issued under the current block, or null before the first. */
    public Instant lastIssuedTime() {
        return engine.generator.lastTime();
    }

    /** How many times a used-up unit made a caller wait for the next one. */
    public long exhaustedWaits() {
        return retiredExhaustedWaits + engine.generator.exhaustedWaits();
    }

    /** The total time callers spent waiting for a new unit after one was used up. */
    public Duration exhaustedWaitTime() {
        return Duration.ofNanos(retiredExhaustedWaitNanos).plus(engine.generator.exhaustedWaitTime());
    }

    /** How many times the clock was seen behind the last issued unit. */
    public long clockBackwardSteps() {
        return retiredBackwardSteps + engine.generator.clockBackwardSteps();
    }

    /** How far the clock is now behind the last issued unit; zero when it is not. */
    public Duration clockBehind() {
        return engine.generator.clockBehind();
    }

    /** The largest step back of the clock that is waited out rather than refused. */
    public Duration maxBackwardWait() {
        return engine.generator.maxBackwardWait();
    }

    /**
     * Why a call would be refused for the clock now (a step back behind issued IDs, or a clock that has not reached
     * the time reserved before this service started), or empty when it would not.
     */
    public Optional<ClockMovedBackwardsException> clockRefusal() {
        return Optional.ofNullable(engine.generator.clockRefusal());
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
        return engine.lease;
    }

    /** Where the high-water mark of the current block is kept, or null when it is not persisted. */
    public TimestampStore timestampStore() {
        TimestampStore own = engine.store;
        return own != null ? own : timestampStore;
    }

    /** Whether {@link #close()} was called: the service then issues no ID. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops issuing (every later {@code genId} throws {@link IllegalStateException}), writes the exact high-water
     * mark, gives the timestamp store back and releases the machine ID. Call after the last ID; safe to call
     * more than once.
     */
    @Override
    public void close() {
        Engine last;
        synchronized (switching) {
            if (closed) {
                return;
            }
            closed = true;
            last = engine;
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
        Engine current = engine;
        return "EmbeddedIdService[" + type + ", " + current.block.describe() + " (" + machineIdSource() + "), "
                + genMethod + ", version " + version + ", epoch " + codec.epoch() + ", " + current.generator.strategy() + "]";
    }

    /**
     * Settings of an {@link EmbeddedIdService}; every setting is checked once, in {@link #build()}, and a bad one
     * is refused with an {@link InvalidSettingException} that names it as the {@code vesta.*} properties spell it,
     * under the prefix given to {@link #settingPrefix(String)}: with the prefix {@code "vesta."}, the machine ID is
     * {@code vesta.machine-id.value}, the wait for a step back {@code vesta.clock.max-backward-wait}.
     */
    public static final class Builder {

        private String settingPrefix = "";
        private IdType type = DEFAULT_TYPE;
        private Long machineId;
        private MachineIdProvider machineIdProvider;
        private int machineIdBlockSize = DEFAULT_MACHINE_ID_BLOCK_SIZE;
        private MachineIdRange machineIdRange;
        /** Set with {@link #machineIdRange(long, long)}: checked in build() under the range settings' names. */
        private boolean machineIdRangeBounds;
        private long machineIdRangeMin;
        private long machineIdRangeMax;
        private GenMethod genMethod = DEFAULT_GEN_METHOD;
        private long version = DEFAULT_VERSION;
        private Instant epoch = IdCodec.DEFAULT_EPOCH;
        private SequencerStrategy sequencer = DEFAULT_SEQUENCER;
        private TimeSource timeSource = TimeSource.system();
        private Duration maxBackwardWait;
        private TimestampStore timestampStore;
        private Path timestampStoreDirectory;
        private Duration persistStep = DEFAULT_PERSIST_STEP;

        private Builder() {
        }

        /**
         * Prepended to every setting's name in errors: {@code "vesta."} gives {@code vesta.machine-id.value}. None by
         * default.
         */
        public Builder settingPrefix(String settingPrefix) {
            this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
            return this;
        }

        /** {@code type}: {@link #DEFAULT_TYPE} by default. */
        public Builder type(IdType type) {
            this.type = type;
            return this;
        }

        /**
         * {@code machine-id.value}: a fixed machine ID, which must lie in the machine-ID range; the same as a
         * {@link PropertyMachineIdProvider} named after the setting. Replaces a provider given before.
         */
        public Builder machineId(long machineId) {
            this.machineId = machineId;
            this.machineIdProvider = null;
            return this;
        }

        /** Where the machine ID comes from; replaces a fixed {@link #machineId(long)} given before. */
        public Builder machineIdProvider(MachineIdProvider provider) {
            this.machineIdProvider = provider;
            this.machineId = null;
            return this;
        }

        /**
         * {@code machine-id.block-size}: how many consecutive machine IDs this node holds and issues under, a power of
         * two in [1, {@link MachineIdRange#MAX_BLOCK_SIZE}]; 1 by default. A block is one of the range's aligned
         * blocks ({@link MachineIdRange#blocks(int)}): with a fixed {@link #machineId(long)} that ID must start one, and
         * a provider hands out a whole block. The node issues up to {@code blockSize} times one ID's ceiling.
         */
        public Builder machineIdBlockSize(int blockSize) {
            this.machineIdBlockSize = blockSize;
            return this;
        }

        /**
         * The range the machine ID must lie in; by default {@link MachineIdRange#EMBEDDED} for gen-method embedded,
         * {@link MachineIdRange#SERVER} for the others.
         */
        public Builder machineIdRange(MachineIdRange range) {
            this.machineIdRange = range;
            this.machineIdRangeBounds = false;
            return this;
        }

        /**
         * {@code machine-id.embedded-range} (gen-method embedded) or {@code machine-id.server-range} (the others):
         * the range as its two settings give it, checked in {@link #build()} under their names.
         */
        public Builder machineIdRange(long min, long max) {
            this.machineIdRange = null;
            this.machineIdRangeBounds = true;
            this.machineIdRangeMin = min;
            this.machineIdRangeMax = max;
            return this;
        }

        /** {@code gen-method}: {@link #DEFAULT_GEN_METHOD} by default. */
        public Builder genMethod(GenMethod genMethod) {
            this.genMethod = genMethod;
            return this;
        }

        /** {@code version}: 0 ({@link #DEFAULT_VERSION}), or 1 for the extension/migration window. */
        public Builder version(long version) {
            this.version = version;
            return this;
        }

        /** {@code epoch}: {@link IdCodec#DEFAULT_EPOCH} by default. */
        public Builder epoch(Instant epoch) {
            this.epoch = epoch;
            return this;
        }

        /** {@code sequencer}: {@link #DEFAULT_SEQUENCER} by default. */
        public Builder sequencer(SequencerStrategy sequencer) {
            this.sequencer = sequencer;
            return this;
        }

        /** The clocks the generator reads and waits on; {@link TimeSource#system()} by default. */
        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = timeSource;
            return this;
        }

        /**
         * {@code clock.max-backward-wait}: the largest step back of the clock that is waited out, at most
         * {@link #MAX_BACKWARD_WAIT_LIMIT}; by default {@link #defaultMaxBackwardWait(IdType)} of the type.
         */
        public Builder maxBackwardWait(Duration maxBackwardWait) {
            this.maxBackwardWait = maxBackwardWait;
            return this;
        }

        /** Where the high-water mark is persisted; none by default. Takes precedence over a directory. */
        public Builder timestampStore(TimestampStore timestampStore) {
            this.timestampStore = timestampStore;
            return this;
        }

        /**
         * Persists the high-water mark in a file of this directory named by the generator's type, machine ID,
         * gen-method and epoch ({@link FileTimestampStore#forGenerator}), once the machine ID is known: one file
         * per machine ID, locked while the generator runs (with a block, one per machine ID of the block,
         * {@link FileTimestampStore#forBlock}).
         */
        public Builder timestampStoreDirectory(Path directory) {
            this.timestampStoreDirectory = directory;
            return this;
        }

        /**
         * {@code time-store.persist-step}: how far ahead of issued time the high-water mark is written, in
         * [{@link #MIN_PERSIST_STEP}, {@link #MAX_PERSIST_STEP}]; {@link #DEFAULT_PERSIST_STEP} by default.
         */
        public Builder persistStep(Duration persistStep) {
            this.persistStep = persistStep;
            return this;
        }

        /**
         * Checks every setting, acquires the machine ID and returns the service. If the clock is behind a
         * stored high-water mark by no more than one persist step (a restart right after a crash), this waits
         * for it to pass the mark.
         *
         * @throws InvalidSettingException naming the first setting that cannot be used, its value and what is allowed
         */
        public EmbeddedIdService build() {
            requireSet("type", type, allowedOf(IdType.values()));
            requireSet("gen-method", genMethod, allowedOf(GenMethod.values()));
            requireSet("sequencer", sequencer, allowedOf(SequencerStrategy.values()));
            requireSet("epoch", epoch, "an instant in the past");
            requireSet("time-source", timeSource, "a TimeSource");
            InvalidSettingException.requireInRange(settingPrefix + "version", version, 0, IdLayout.MAX_VERSION);
            Duration backwardWait = InvalidSettingException.requireInRange(settingPrefix + "clock.max-backward-wait",
                    maxBackwardWait != null ? maxBackwardWait : defaultMaxBackwardWait(type), Duration.ZERO,
                    MAX_BACKWARD_WAIT_LIMIT);
            InvalidSettingException.requireInRange(settingPrefix + "time-store.persist-step", persistStep,
                    MIN_PERSIST_STEP, MAX_PERSIST_STEP);
            IdLayout layout = IdLayout.of(type);
            checkEpoch(layout, Instant.ofEpochMilli(timeSource.currentTimeMillis()));
            String rangeSetting = settingPrefix + (genMethod == GenMethod.EMBEDDED ? "machine-id.embedded-range"
                    : "machine-id.server-range");
            MachineIdRange range = machineIdRange != null ? machineIdRange
                    : machineIdRangeBounds ? MachineIdRange.of(rangeSetting, machineIdRangeMin, machineIdRangeMax)
                    : genMethod == GenMethod.EMBEDDED ? MachineIdRange.EMBEDDED : MachineIdRange.SERVER;
            int blockSize = checkBlockSize(range, rangeSetting);
            MachineIdProvider provider = provider(range, rangeSetting);
            Engines engines = new Engines(sequencer, timeSource, layout, type, epoch, backwardWait, timestampStore,
                    timestampStoreDirectory, persistStep, genMethod, version, provider, settingPrefix);
            TimestampStore store = timestampStore;
            boolean storeOpen = false;
            try {
                // Inside the try: a provider may have started something (a heartbeat, a Curator client) before
                // it failed, and closing it is what stops that.
                MachineIdBlock block = acquire(provider, range, rangeSetting, blockSize);
                MachineIdGrant grant = provider.grant().orElse(null);
                MachineIdLease lease = provider.lease();
                OptionalLong notBefore = provider.notBefore();
                if (grant != null) {
                    // Block, lease and mark read as one: should the provider have claimed anew since acquire returned,
                    // the newest grant is what is held.
                    block = checkBlock(provider, range, rangeSetting, blockSize, grant.block().first());
                    lease = grant.lease();
                    notBefore = grant.notBefore();
                }
                if (store != null) {
                    openStore(store, block);
                    storeOpen = true;
                }
                Engine engine = engines.start(grant, block, lease, notBefore);
                EmbeddedIdService service = new EmbeddedIdService(this, provider, engines, engine, store);
                warnIfRunningOut(service);
                if (grant != null) {
                    provider.onRegain(service::moveAfterRegain);
                    // A regain before the listener was in place is taken up here.
                    service.moveAfterRegain();
                }
                return service;
            } catch (RuntimeException e) {
                try {
                    if (storeOpen) {
                        store.close();
                    }
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                } finally {
                    provider.close();
                }
                throw e;
            }
        }

        /** The block size, once it is known to be a power of two that fits the range. */
        private int checkBlockSize(MachineIdRange range, String rangeSetting) {
            String setting = settingPrefix + "machine-id.block-size";
            int blockSize = MachineIdRange.requireBlockSize(setting, machineIdBlockSize);
            if (blockSize > range.size()) {
                throw new InvalidSettingException(setting, blockSize, "a block size of at most " + Long.highestOneBit(
                        range.size()) + " (" + MachineIdRange.BLOCK_SIZES + ") with this range, or a wider " + rangeSetting,
                        "does not fit the machine-ID range [" + range.min() + ", " + range.max() + "] of gen-method "
                        + kebab(genMethod) + ", which holds " + range.size() + " machine IDs");
            }
            return blockSize;
        }

        /** The provider's block, checked to be one of the range's aligned blocks. */
        private MachineIdBlock acquire(MachineIdProvider provider, MachineIdRange range, String rangeSetting, int blockSize) {
            long first;
            try {
                first = provider.acquire(range, blockSize);
            } catch (MachineIdOutOfRangeException e) {
                // The provider names the setting that gave the ID; only here is it known whose range it missed.
                // The same fault restated with that context, so not chained: callers read the root cause.
                throw new InvalidSettingException(e.setting(), e.machineId(), rangeAllowed(range, rangeSetting, blockSize),
                        range.contains(e.machineId()) ? "does not start a block of " + blockSize + " aligned from "
                                + range.min() + " inside the machine-ID range of gen-method " + kebab(genMethod)
                                : "is outside the machine-ID range of gen-method " + kebab(genMethod));
            } catch (UnsupportedOperationException e) {
                throw new InvalidSettingException(settingPrefix + "machine-id.block-size", blockSize, "1 with the machine-ID"
                        + " provider " + provider.describe(), "is not supported: " + e.getMessage());
            }
            return checkBlock(provider, range, rangeSetting, blockSize, first);
        }

        /** The block from {@code first}, once it is known to be one of the range's aligned blocks. */
        private MachineIdBlock checkBlock(MachineIdProvider provider, MachineIdRange range, String rangeSetting,
                int blockSize, long first) {
            if (!range.holdsBlock(first, blockSize)) {
                throw new InvalidSettingException(rangeSetting, range, "a range that holds the machine IDs the"
                        + " machine-ID provider hands out", "does not hold " + (blockSize == 1 ? "machine ID " + first
                        : "an aligned block of " + blockSize + " from machine ID " + first) + ", which the machine-ID"
                        + " provider " + provider.describe() + " returned");
            }
            return new MachineIdBlock(first, blockSize);
        }

        /**
         * The provider that was given, or one for the fixed machine ID.
         */
        private MachineIdProvider provider(MachineIdRange range, String rangeSetting) {
            if (machineIdProvider != null) {
                return machineIdProvider;
            }
            String setting = settingPrefix + PropertyMachineIdProvider.SETTING;
            if (machineId == null) {
                throw new InvalidSettingException(setting, null, rangeAllowed(range, rangeSetting, machineIdBlockSize),
                        "is required when no machine-ID provider is given");
            }
            // Whether it lies in the range is the provider's check, when build() acquires it.
            return new PropertyMachineIdProvider(machineId, setting);
        }

        /**
         * What a (first) machine ID of this generator may be: the range or its block starts, the setting that holds
         * the range and the gen-method.
         */
        private String rangeAllowed(MachineIdRange range, String rangeSetting, int blockSize) {
            return range.describeBlockStarts(blockSize) + " (" + rangeSetting + (blockSize == 1 ? "" : ", "
                    + settingPrefix + "machine-id.block-size " + blockSize) + ", for gen-method " + kebab(genMethod) + ")";
        }

        /**
         * The epoch must lie in the past, and close enough that the time field still holds the current time.
         * Compared as instants: subtracting a far epoch in milliseconds would overflow and let it through.
         */
        private void checkEpoch(IdLayout layout, Instant now) {
            Instant earliest = now.minusMillis((layout.maxTime() + 1) * layout.unitMillis()).plusMillis(1);
            if (epoch.isAfter(now) || epoch.isBefore(earliest)) {
                throw new InvalidSettingException(settingPrefix + "epoch", epoch, "an instant in [" + earliest + ", " + now
                        + "] for type " + kebab(type) + ": not in the future, and recent enough that its "
                        + layout.timeBits() + "-bit time field of " + layout.unitMillis() + " ms units still holds the"
                        + " current time", epoch.isAfter(now) ? "is in the future" : "is too far in the past");
            }
        }

        /**
         * Baidu's UidGenerator ran out of time bits in production with nobody warned; a year is time enough to plan the
         * move. A later epoch alone would issue old IDs' time fields again (and is refused); a new version or type
         * never makes an ID of the old ones.
         */
        private void warnIfRunningOut(EmbeddedIdService service) {
            Duration left = service.timeRemaining();
            if (left.compareTo(TIME_REMAINING_WARNING) < 0) {
                LOG.log(Level.WARNING, () -> "The " + kebab(type) + " time field runs out at " + service.timeFieldEnd()
                        + " with " + settingPrefix + "epoch=" + epoch + ": " + left.toDays() + " days left, after which"
                        + " this node issues no ID. Plan the move now: a later " + settingPrefix + "epoch together with "
                        + (version == 0 ? settingPrefix + "version=1" : "the other " + settingPrefix + "type")
                        + " (IDs that differ in version or type never equal these); a later epoch alone would repeat the"
                        + " time fields of IDs already issued and is refused. See docs/id-layout.md.");
            }
        }

        private void requireSet(String setting, Object value, String allowed) {
            InvalidSettingException.requireSet(settingPrefix + setting, value, allowed);
        }

        static void openStore(TimestampStore store, MachineIdBlock block) {
            try {
                store.open();
            } catch (IllegalStateException e) {
                throw new IllegalStateException("Cannot start the generator of " + block.describe() + ": "
                        + e.getMessage() + ". Two generators under one machine ID would issue the same IDs: give each"
                        + " process its own machine ID.", e);
            }
        }

        /** An enum constant as a property spells it: {@code CENTRAL_SERVER} is {@code central-server}. */
        private static String kebab(Enum<?> constant) {
            return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        private static String allowedOf(Enum<?>[] constants) {
            StringBuilder allowed = new StringBuilder();
            for (int i = 0; i < constants.length; i++) {
                allowed.append(i == 0 ? "" : i == constants.length - 1 ? " or " : ", ").append(kebab(constants[i]));
            }
            return allowed.toString();
        }
    }
}
