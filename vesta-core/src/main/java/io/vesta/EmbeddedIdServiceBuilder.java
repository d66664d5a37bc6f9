package io.vesta;

import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.machine.FallbackMachineIdProvider;
import io.vesta.machine.MachineIdAssignment;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdGrant;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.PropertyMachineIdProvider;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.time.FileTimestampStore;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;

import static io.vesta.EmbeddedIdService.DEFAULT_GEN_METHOD;
import static io.vesta.EmbeddedIdService.DEFAULT_MACHINE_ID_BLOCK_SIZE;
import static io.vesta.EmbeddedIdService.DEFAULT_PERSIST_STEP;
import static io.vesta.EmbeddedIdService.DEFAULT_SEQUENCER;
import static io.vesta.EmbeddedIdService.DEFAULT_TYPE;
import static io.vesta.EmbeddedIdService.DEFAULT_VERSION;
import static io.vesta.EmbeddedIdService.MAX_BACKWARD_WAIT_LIMIT;
import static io.vesta.EmbeddedIdService.MAX_PERSIST_STEP;
import static io.vesta.EmbeddedIdService.MIN_PERSIST_STEP;
import static io.vesta.EmbeddedIdService.TIME_REMAINING_WARNING;
import static io.vesta.EmbeddedIdService.defaultMaxBackwardWait;
import static io.vesta.SettingNames.kebab;

/**
 * Settings of an {@link EmbeddedIdService}; every setting is checked once, in {@link #build()}, and a bad one
 * is refused with an {@link InvalidSettingException} that names it as the {@code vesta.*} properties spell it,
 * under the prefix given to {@link #settingPrefix(String)}: with the prefix {@code "vesta."}, the machine ID is
 * {@code vesta.machine-id.value}, the wait for a step back {@code vesta.clock.max-backward-wait}. Which machine IDs
 * the service issues under is {@link MachineIdAssignment}'s part of {@link #build()}; whether the epoch suits the
 * type is the layout's ({@link IdLayout#checkEpoch}).
 */
public final class EmbeddedIdServiceBuilder {

    private static final System.Logger LOG = System.getLogger(EmbeddedIdService.class.getName());

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
    private Long machineIdFallback;
    private Duration machineIdFallbackCheckInterval = FallbackMachineIdProvider.DEFAULT_CHECK_INTERVAL;

    EmbeddedIdServiceBuilder() {
    }

    /**
     * Prepended to every setting's name in errors: {@code "vesta."} gives {@code vesta.machine-id.value}. None by
     * default.
     */
    public EmbeddedIdServiceBuilder settingPrefix(String settingPrefix) {
        this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
        return this;
    }

    /** {@code type}: {@link EmbeddedIdService#DEFAULT_TYPE} by default. */
    public EmbeddedIdServiceBuilder type(IdType type) {
        this.type = type;
        return this;
    }

    /**
     * {@code machine-id.value}: a fixed machine ID, which must lie in the machine-ID range; the same as a
     * {@link PropertyMachineIdProvider} named after the setting. Replaces a provider given before.
     */
    public EmbeddedIdServiceBuilder machineId(long machineId) {
        this.machineId = machineId;
        this.machineIdProvider = null;
        return this;
    }

    /** Where the machine ID comes from; replaces a fixed {@link #machineId(long)} given before. */
    public EmbeddedIdServiceBuilder machineIdProvider(MachineIdProvider provider) {
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
    public EmbeddedIdServiceBuilder machineIdBlockSize(int blockSize) {
        this.machineIdBlockSize = blockSize;
        return this;
    }

    /**
     * {@code machine-id.fallback.value}: a machine ID configured for this node in advance, issued under while the
     * {@link #machineIdProvider provider}'s store cannot give the node a block: at start-up, or after its lease ran out
     * or was lost and no other was claimed ({@link FallbackMachineIdProvider}); the node goes back to a leased block as
     * soon as the store gives it one. The first of a block of the {@link #machineIdBlockSize block size}, aligned from 0,
     * outside the machine-ID range, and this node's alone: nothing coordinates it, as with a fixed machine ID. Needs a
     * time store ({@link #timestampStoreDirectory} or {@link #timestampStore}): its mark is what keeps a restarted node's
     * fallback IDs after those of its previous run. Null, the default, for none.
     */
    public EmbeddedIdServiceBuilder machineIdFallback(Long first) {
        this.machineIdFallback = first;
        return this;
    }

    /**
     * How often a service with a {@link #machineIdFallback fallback} checks its leased block, to move to the fallback
     * and back; {@link FallbackMachineIdProvider#DEFAULT_CHECK_INTERVAL} by default.
     */
    public EmbeddedIdServiceBuilder machineIdFallbackCheckInterval(Duration interval) {
        this.machineIdFallbackCheckInterval = interval;
        return this;
    }

    /**
     * The range the machine ID must lie in; by default {@link MachineIdRange#EMBEDDED} for gen-method embedded,
     * {@link MachineIdRange#SERVER} for the others. The range's {@link MachineIdRange#order() order} is used as given.
     */
    public EmbeddedIdServiceBuilder machineIdRange(MachineIdRange range) {
        this.machineIdRange = range;
        this.machineIdRangeBounds = false;
        return this;
    }

    /**
     * {@code machine-id.embedded-range} (gen-method embedded) or {@code machine-id.server-range} (the others):
     * the range as its two settings give it, checked in {@link #build()} under their names, its blocks handed out in
     * the order of the gen-method's default range: embedded from the bottom up, servers from the top down.
     */
    public EmbeddedIdServiceBuilder machineIdRange(long min, long max) {
        this.machineIdRange = null;
        this.machineIdRangeBounds = true;
        this.machineIdRangeMin = min;
        this.machineIdRangeMax = max;
        return this;
    }

    /** {@code gen-method}: {@link EmbeddedIdService#DEFAULT_GEN_METHOD} by default. */
    public EmbeddedIdServiceBuilder genMethod(GenMethod genMethod) {
        this.genMethod = genMethod;
        return this;
    }

    /** {@code version}: 0 ({@link EmbeddedIdService#DEFAULT_VERSION}), or 1 for the extension/migration window. */
    public EmbeddedIdServiceBuilder version(long version) {
        this.version = version;
        return this;
    }

    /** {@code epoch}: {@link IdCodec#DEFAULT_EPOCH} by default. */
    public EmbeddedIdServiceBuilder epoch(Instant epoch) {
        this.epoch = epoch;
        return this;
    }

    /** {@code sequencer}: {@link EmbeddedIdService#DEFAULT_SEQUENCER} by default. */
    public EmbeddedIdServiceBuilder sequencer(SequencerStrategy sequencer) {
        this.sequencer = sequencer;
        return this;
    }

    /** The clocks the generator reads and waits on; {@link TimeSource#system()} by default. */
    public EmbeddedIdServiceBuilder timeSource(TimeSource timeSource) {
        this.timeSource = timeSource;
        return this;
    }

    /**
     * {@code clock.max-backward-wait}: the largest step back of the clock that is waited out, at most
     * {@link EmbeddedIdService#MAX_BACKWARD_WAIT_LIMIT}; by default
     * {@link EmbeddedIdService#defaultMaxBackwardWait(IdType)} of the type.
     */
    public EmbeddedIdServiceBuilder maxBackwardWait(Duration maxBackwardWait) {
        this.maxBackwardWait = maxBackwardWait;
        return this;
    }

    /** Where the high-water mark is persisted; none by default. Takes precedence over a directory. */
    public EmbeddedIdServiceBuilder timestampStore(TimestampStore timestampStore) {
        this.timestampStore = timestampStore;
        return this;
    }

    /**
     * Persists the high-water mark in a file of this directory named by the generator's type, machine ID,
     * gen-method and epoch ({@link FileTimestampStore#forGenerator}), once the machine ID is known: one file
     * per machine ID, locked while the generator runs (with a block, one per machine ID of the block,
     * {@link FileTimestampStore#forBlock}).
     */
    public EmbeddedIdServiceBuilder timestampStoreDirectory(Path directory) {
        this.timestampStoreDirectory = directory;
        return this;
    }

    /**
     * {@code time-store.persist-step}: how far ahead of issued time the high-water mark is written, in
     * [{@link EmbeddedIdService#MIN_PERSIST_STEP}, {@link EmbeddedIdService#MAX_PERSIST_STEP}];
     * {@link EmbeddedIdService#DEFAULT_PERSIST_STEP} by default.
     */
    public EmbeddedIdServiceBuilder persistStep(Duration persistStep) {
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
        layout.checkEpoch(settingPrefix + "epoch", epoch, Instant.ofEpochMilli(timeSource.currentTimeMillis()));
        // Bounds set as numbers are handed out in the order of the gen-method's kind (embedded up from the bottom,
        // servers down from the top), the order its default range carries; a range object given whole keeps its own.
        MachineIdRange kindDefault = MachineIdAssignment.defaultRange(genMethod);
        MachineIdRange range = machineIdRange != null ? machineIdRange : machineIdRangeBounds ? MachineIdRange.of(
                MachineIdAssignment.rangeSetting(settingPrefix, genMethod), machineIdRangeMin, machineIdRangeMax)
                .inOrder(kindDefault.order()) : kindDefault;
        if (machineIdFallback != null) {
            if (timestampStore == null && timestampStoreDirectory == null) {
                throw new InvalidSettingException(settingPrefix + MachineIdAssignment.FALLBACK_SETTING, machineIdFallback,
                        "unset, or set with a time store (" + settingPrefix + "time-store.enabled=true)", "needs a time"
                        + " store: the fallback machine ID is leased from nowhere, so its high-water mark in the time store"
                        + " is all that keeps the IDs of a restarted node after those of its previous run");
            }
            InvalidSettingException.requireInRange(settingPrefix + "machine-id.fallback.check-interval",
                    machineIdFallbackCheckInterval, Duration.ofMillis(1), Duration.ofMinutes(1));
        }
        MachineIdAssignment assignment = new MachineIdAssignment(settingPrefix, genMethod, range, machineIdBlockSize,
                machineIdProvider, machineId, machineIdFallback, timeSource, machineIdFallbackCheckInterval);
        MachineIdProvider provider = assignment.provider();
        BlockEngine.Factory engines = new BlockEngine.Factory(sequencer, timeSource, layout, type, epoch,
                backwardWait, timestampStore, timestampStoreDirectory, persistStep, genMethod, version, provider,
                settingPrefix, assignment.fallback());
        TimestampStore store = timestampStore;
        boolean storeOpen = false;
        try {
            // Inside the try: a provider may have started something (a heartbeat, a Curator client) before
            // it failed, and closing it is what stops that.
            MachineIdBlock block = assignment.acquire();
            MachineIdGrant grant = provider.grant().orElse(null);
            MachineIdLease lease = provider.lease();
            OptionalLong notBefore = provider.notBefore();
            if (grant != null) {
                // Block, lease and mark read as one: should the provider have claimed anew since acquire returned,
                // the newest grant is what is held.
                block = assignment.checkBlock(grant.block().first());
                lease = grant.lease();
                notBefore = grant.notBefore();
            }
            if (store != null) {
                BlockEngine.openStore(store, block);
                storeOpen = true;
            }
            EmbeddedIdService service = new EmbeddedIdService(engines, engines.start(grant, block, lease, notBefore));
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

    private static String allowedOf(Enum<?>[] constants) {
        StringBuilder allowed = new StringBuilder();
        for (int i = 0; i < constants.length; i++) {
            allowed.append(i == 0 ? "" : i == constants.length - 1 ? " or " : ", ").append(kebab(constants[i]));
        }
        return allowed.toString();
    }
}
