package io.vesta.machine;

import io.vesta.GenMethod;
import io.vesta.InvalidSettingException;

import static io.vesta.SettingNames.kebab;

/**
 * Which machine IDs a generator issues under: the range of its gen-method, the block size, the provider (the one given,
 * or one for a fixed machine ID), and the block the provider hands out, checked to be one of the range's aligned
 * blocks. A provider's fault is restated here, under the setting that caused it: only here are the range, its setting
 * and the gen-method known together.
 *
 * <p>Constructing one checks the settings (block size, a machine ID or provider being set); nothing is acquired until
 * {@link #acquire()}. A provider that is not used after all must still be closed by the caller.
 */
public final class MachineIdAssignment {

    private final String settingPrefix;
    private final GenMethod genMethod;
    private final MachineIdRange range;
    private final String rangeSetting;
    private final int blockSize;
    private final MachineIdProvider provider;

    /**
     * @param settingPrefix put before every setting named in errors, {@code "vesta."} or none
     * @param range the range the machine IDs must lie in, already checked
     * @param blockSize the {@code machine-id.block-size} setting, not yet checked
     * @param provider the provider given, or null to use {@code machineId}
     * @param machineId the fixed {@code machine-id.value}, or null when a provider is given
     * @throws InvalidSettingException if the block size does not fit the range, or neither a provider nor a machine ID
     *         is set
     */
    public MachineIdAssignment(String settingPrefix, GenMethod genMethod, MachineIdRange range, int blockSize,
            MachineIdProvider provider, Long machineId) {
        this.settingPrefix = settingPrefix;
        this.genMethod = genMethod;
        this.range = range;
        this.rangeSetting = rangeSetting(settingPrefix, genMethod);
        this.blockSize = checkBlockSize(blockSize);
        this.provider = provider != null ? provider : fixed(machineId);
    }

    /**
     * The setting that holds the machine-ID range of {@code genMethod}: {@code machine-id.embedded-range} for
     * gen-method embedded, {@code machine-id.server-range} for the others.
     */
    public static String rangeSetting(String settingPrefix, GenMethod genMethod) {
        return settingPrefix + (genMethod == GenMethod.EMBEDDED ? "machine-id.embedded-range" : "machine-id.server-range");
    }

    /** The range a generator of {@code genMethod} uses when none is set. */
    public static MachineIdRange defaultRange(GenMethod genMethod) {
        return genMethod == GenMethod.EMBEDDED ? MachineIdRange.EMBEDDED : MachineIdRange.SERVER;
    }

    /** The provider that was given, or the one for the fixed machine ID. */
    public MachineIdProvider provider() {
        return provider;
    }

    /** The block size, a power of two that fits the range. */
    public int blockSize() {
        return blockSize;
    }

    /** The provider's block, checked to be one of the range's aligned blocks. */
    public MachineIdBlock acquire() {
        long first;
        try {
            first = provider.acquire(range, blockSize);
        } catch (MachineIdOutOfRangeException e) {
            // The provider names the setting that gave the ID; only here is it known whose range it missed.
            // The same fault restated with that context, so not chained: callers read the root cause.
            throw new InvalidSettingException(e.setting(), e.machineId(), rangeAllowed(blockSize),
                    range.contains(e.machineId()) ? "does not start a block of " + blockSize + " aligned from "
                            + range.min() + " inside the machine-ID range of gen-method " + kebab(genMethod)
                            : "is outside the machine-ID range of gen-method " + kebab(genMethod));
        } catch (UnsupportedOperationException e) {
            throw new InvalidSettingException(settingPrefix + "machine-id.block-size", blockSize, "1 with the machine-ID"
                    + " provider " + provider.describe(), "is not supported: " + e.getMessage());
        }
        return checkBlock(first);
    }

    /**
     * The block from {@code first}, once it is known to be one of the range's aligned blocks: for what {@link #acquire()}
     * returned, and for a block the provider claimed again by itself ({@link MachineIdProvider#grant()}).
     */
    public MachineIdBlock checkBlock(long first) {
        if (!range.holdsBlock(first, blockSize)) {
            throw new InvalidSettingException(rangeSetting, range, "a range that holds the machine IDs the"
                    + " machine-ID provider hands out", "does not hold " + (blockSize == 1 ? "machine ID " + first
                    : "an aligned block of " + blockSize + " from machine ID " + first) + ", which the machine-ID"
                    + " provider " + provider.describe() + " returned");
        }
        return new MachineIdBlock(first, blockSize);
    }

    /** The block size, once it is known to be a power of two that fits the range. */
    private int checkBlockSize(int requested) {
        String setting = settingPrefix + "machine-id.block-size";
        int size = MachineIdRange.requireBlockSize(setting, requested);
        if (size > range.size()) {
            throw new InvalidSettingException(setting, size, "a block size of at most " + Long.highestOneBit(
                    range.size()) + " (" + MachineIdRange.BLOCK_SIZES + ") with this range, or a wider " + rangeSetting,
                    "does not fit the machine-ID range [" + range.min() + ", " + range.max() + "] of gen-method "
                    + kebab(genMethod) + ", which holds " + range.size() + " machine IDs");
        }
        return size;
    }

    /** The provider for a fixed machine ID; whether it lies in the range is its check, when it is acquired. */
    private MachineIdProvider fixed(Long machineId) {
        String setting = settingPrefix + PropertyMachineIdProvider.SETTING;
        if (machineId == null) {
            throw new InvalidSettingException(setting, null, rangeAllowed(blockSize),
                    "is required when no machine-ID provider is given");
        }
        return new PropertyMachineIdProvider(machineId, setting);
    }

    /**
     * What a (first) machine ID of this generator may be: the range or its block starts, the setting that holds
     * the range and the gen-method.
     */
    private String rangeAllowed(int size) {
        return range.describeBlockStarts(size) + " (" + rangeSetting + (size == 1 ? "" : ", "
                + settingPrefix + "machine-id.block-size " + size) + ", for gen-method " + kebab(genMethod) + ")";
    }
}
