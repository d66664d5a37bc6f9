package io.vesta;

import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.PropertyMachineIdProvider;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.sequence.TimeSeqGenerator;
import io.vesta.time.FileTimestampStore;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * Generates IDs in this process under one machine ID. Build it with {@link #builder()}; close it when the
 * node stops, to give back the machine ID and write the exact high-water mark.
 *
 * <p>Each instance is the whole state of one machine ID, so a node that needs more than one machine ID's
 * ceiling composes several instances rather than sharing one.
 */
public final class EmbeddedIdService implements IdService, AutoCloseable {

    /** The default wait for a step back of the clock with {@link IdType#MIN_GRANULARITY}. */
    public static final Duration DEFAULT_MAX_BACKWARD_WAIT_MIN_GRANULARITY = Duration.ofMillis(5);
    /** The default wait for a step back of the clock with {@link IdType#MAX_PEAK}. */
    public static final Duration DEFAULT_MAX_BACKWARD_WAIT_MAX_PEAK = Duration.ofSeconds(1);
    /** The longest step back a node may be configured to wait out. */
    public static final Duration MAX_BACKWARD_WAIT_LIMIT = Duration.ofMinutes(1);
    /** How far ahead of issued time the high-water mark is written, by default. */
    public static final Duration DEFAULT_PERSIST_STEP = Duration.ofSeconds(3);

    private final IdType type;
    private final IdLayout layout;
    private final IdCodec codec;
    private final long machineId;
    private final GenMethod genMethod;
    private final long version;
    private final long constantBits;
    private final TimeSeqGenerator generator;
    private final MachineIdProvider machineIdProvider;
    private final TimestampStore timestampStore;

    private EmbeddedIdService(Builder builder, long machineId, TimeSeqGenerator generator, TimestampStore timestampStore) {
        this.type = builder.type;
        this.layout = IdLayout.of(builder.type);
        this.codec = new IdCodec(builder.epoch);
        this.machineId = machineId;
        this.genMethod = builder.genMethod;
        this.version = builder.version;
        this.constantBits = layout.constantBits(version, genMethod.code(), machineId);
        this.generator = generator;
        this.machineIdProvider = builder.machineIdProvider;
        this.timestampStore = timestampStore;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public long genId() {
        return IdLayout.fromTimeSeq(generator.next(), constantBits);
    }

    @Override
    public long[] genIds(int count) {
        if (count < 1 || count > MAX_BATCH) {
            throw new IllegalArgumentException("count must be in [1, " + MAX_BATCH + "], was " + count);
        }
        long[] ids = new long[count];
        int filled = 0;
        while (filled < count) {
            int wanted = count - filled;
            long first = generator.reserve(wanted);
            int granted = generator.granted(first, wanted);
            for (int i = 0; i < granted; i++) {
                ids[filled++] = IdLayout.fromTimeSeq(first + i, constantBits);
            }
        }
        return ids;
    }

    @Override
    public Id expId(long id) {
        return codec.expId(id);
    }

    @Override
    public Instant transTime(long time) {
        return codec.transTime(type, time);
    }

    @Override
    public long makeId(long time, long seq) {
        return makeId(version, type.code(), genMethod.code(), time, seq, machineId);
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

    public long machineId() {
        return machineId;
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

    public SequencerStrategy sequencerStrategy() {
        return generator.strategy();
    }

    /** How many IDs this service has issued since it was built. */
    public long idsIssued() {
        return generator.issued();
    }

    /** The start of the time unit of the last ID issued, or null before the first. */
    public Instant lastIssuedTime() {
        return generator.lastTime();
    }

    /** How many times a used-up unit made a caller wait for the next one. */
    public long exhaustedWaits() {
        return generator.exhaustedWaits();
    }

    /** The total time callers spent waiting for a new unit after one was used up. */
    public Duration exhaustedWaitTime() {
        return generator.exhaustedWaitTime();
    }

    /** How many times the clock was seen behind the last issued unit. */
    public long clockBackwardSteps() {
        return generator.clockBackwardSteps();
    }

    /** How far the clock is now behind the last issued unit; zero when it is not. */
    public Duration clockBehind() {
        return generator.clockBehind();
    }

    /** The largest step back of the clock that is waited out rather than refused. */
    public Duration maxBackwardWait() {
        return generator.maxBackwardWait();
    }

    /** Whether an ID can be issued now without a refusal for the clock. */
    public boolean clockHealthy() {
        return clockBehind().compareTo(maxBackwardWait()) <= 0;
    }

    /** The lease on the machine ID; {@link MachineIdLease#forever()} for fixed IDs. */
    public MachineIdLease machineIdLease() {
        return machineIdProvider.lease();
    }

    /** Where the high-water mark is kept, or null when it is not persisted. */
    public TimestampStore timestampStore() {
        return timestampStore;
    }

    /** Whether {@link #close()} was called: the service then issues no ID. */
    public boolean isClosed() {
        return generator.isClosed();
    }

    /**
     * Stops issuing (every later {@code genId} throws {@link IllegalStateException}), writes the exact high-water
     * mark, gives the timestamp store back and releases the machine ID. Call after the last ID; safe to call
     * more than once.
     */
    @Override
    public void close() {
        try {
            generator.close();
        } finally {
            try {
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
        return "EmbeddedIdService[" + type + ", machine " + machineId + " (" + machineIdSource() + "), "
                + genMethod + ", version " + version + ", epoch " + codec.epoch() + ", " + generator.strategy() + "]";
    }

    /** Settings of an {@link EmbeddedIdService}; every setting is checked in {@link #build()}. */
    public static final class Builder {

        private IdType type = IdType.MAX_PEAK;
        private MachineIdProvider machineIdProvider;
        private MachineIdRange machineIdRange;
        private GenMethod genMethod = GenMethod.EMBEDDED;
        private long version;
        private Instant epoch = IdCodec.DEFAULT_EPOCH;
        private SequencerStrategy sequencer = SequencerStrategy.LOCK;
        private TimeSource timeSource = TimeSource.system();
        private Duration maxBackwardWait;
        private TimestampStore timestampStore;
        private Path timestampStoreDirectory;
        private Duration persistStep = DEFAULT_PERSIST_STEP;

        private Builder() {
        }

        public Builder type(IdType type) {
            this.type = type;
            return this;
        }

        /** A fixed machine ID; the same as {@code machineIdProvider(new PropertyMachineIdProvider(id))}. */
        public Builder machineId(long machineId) {
            this.machineIdProvider = new PropertyMachineIdProvider(machineId);
            return this;
        }

        public Builder machineIdProvider(MachineIdProvider provider) {
            this.machineIdProvider = provider;
            return this;
        }

        /** The range the machine ID must lie in; by default 0-923 for embedded, 924-1023 for servers. */
        public Builder machineIdRange(MachineIdRange range) {
            this.machineIdRange = range;
            return this;
        }

        public Builder genMethod(GenMethod genMethod) {
            this.genMethod = genMethod;
            return this;
        }

        /** 0, or 1 for the extension/migration window. */
        public Builder version(long version) {
            this.version = version;
            return this;
        }

        public Builder epoch(Instant epoch) {
            this.epoch = epoch;
            return this;
        }

        public Builder sequencer(SequencerStrategy sequencer) {
            this.sequencer = sequencer;
            return this;
        }

        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = timeSource;
            return this;
        }

        /** The largest step back of the clock that is waited out; by default 5 ms (MIN_GRANULARITY) or 1 s. */
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
         * per generator, locked while the generator runs.
         */
        public Builder timestampStoreDirectory(Path directory) {
            this.timestampStoreDirectory = directory;
            return this;
        }

        /** How far ahead of issued time the high-water mark is written; 3 s by default. */
        public Builder persistStep(Duration persistStep) {
            this.persistStep = persistStep;
            return this;
        }

        /**
         * Checks every setting, acquires the machine ID and returns the service. If the clock is behind a
         * stored high-water mark by no more than one persist step (a restart right after a crash), this waits
         * for it to pass the mark.
         */
        public EmbeddedIdService build() {
            require("type", type);
            require("genMethod", genMethod);
            require("epoch", epoch);
            require("sequencer", sequencer);
            require("timeSource", timeSource);
            require("machineId", machineIdProvider);
            if (version < 0 || version > IdLayout.MAX_VERSION) {
                throw new IllegalArgumentException("version must be in [0, " + IdLayout.MAX_VERSION + "], was " + version);
            }
            Duration backwardWait = maxBackwardWait != null ? maxBackwardWait
                    : type == IdType.MAX_PEAK ? DEFAULT_MAX_BACKWARD_WAIT_MAX_PEAK : DEFAULT_MAX_BACKWARD_WAIT_MIN_GRANULARITY;
            if (backwardWait.isNegative() || backwardWait.compareTo(MAX_BACKWARD_WAIT_LIMIT) > 0) {
                throw new IllegalArgumentException("maxBackwardWait must be in [0ms, " + MAX_BACKWARD_WAIT_LIMIT.toMillis()
                        + "ms], was " + backwardWait.toMillis() + "ms");
            }
            require("persistStep", persistStep);
            if (persistStep.compareTo(Duration.ofMillis(1)) < 0 || persistStep.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("persistStep must be in [1ms, 3600000ms], was " + persistStep.toMillis() + "ms");
            }
            IdLayout layout = IdLayout.of(type);
            Instant now = Instant.ofEpochMilli(timeSource.currentTimeMillis());
            checkEpoch(layout, now);
            MachineIdRange range = machineIdRange != null ? machineIdRange
                    : genMethod == GenMethod.EMBEDDED ? MachineIdRange.EMBEDDED : MachineIdRange.SERVER;
            TimestampStore store = null;
            boolean storeOpen = false;
            try {
                // Inside the try: a provider may have started something (a heartbeat, a Curator client) before
                // it failed, and closing it is what stops that.
                long machineId = machineIdProvider.acquire(range);
                range.check("machineId", machineId);
                store = timestampStore != null ? timestampStore : timestampStoreDirectory == null ? null
                        : FileTimestampStore.forGenerator(timestampStoreDirectory, type, machineId, genMethod, epoch);
                if (store != null) {
                    openStore(store, machineId);
                    storeOpen = true;
                }
                TimeSeqGenerator generator = TimeSeqGenerator.start(sequencer, timeSource, layout, epoch, backwardWait,
                        store, persistStep, machineId, machineIdProvider);
                return new EmbeddedIdService(this, machineId, generator, store);
            } catch (RuntimeException e) {
                try {
                    if (storeOpen) {
                        store.close();
                    }
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                } finally {
                    machineIdProvider.close();
                }
                throw e;
            }
        }

        /**
         * The epoch must lie in the past, and close enough that the time field still holds the current time.
         * Compared as instants: subtracting a far epoch in milliseconds would overflow and let it through.
         */
        private void checkEpoch(IdLayout layout, Instant now) {
            Instant earliest = now.minusMillis((layout.maxTime() + 1) * layout.unitMillis()).plusMillis(1);
            if (epoch.isAfter(now) || epoch.isBefore(earliest)) {
                throw new IllegalArgumentException("epoch must be in [" + earliest + ", " + now + "] for " + type + ": not in"
                        + " the future, and recent enough that its " + layout.timeBits() + "-bit time field of "
                        + layout.unitMillis() + " ms units still holds the current time; was " + epoch);
            }
        }

        private static void openStore(TimestampStore store, long machineId) {
            try {
                store.open();
            } catch (IllegalStateException e) {
                throw new IllegalStateException("Cannot start the generator of machine ID " + machineId + ": "
                        + e.getMessage() + ". Two generators under one machine ID would issue the same IDs: give each"
                        + " process its own machine ID.", e);
            }
        }

        private static void require(String name, Object value) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must be set");
            }
        }
    }
}
