package io.vesta.machine;

import io.vesta.GenMethod;
import io.vesta.InvalidSettingException;
import io.vesta.layout.IdLayout;
import io.vesta.time.TimeSource;

import java.time.Duration;
import java.util.Arrays;

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

    /** The setting of the fallback machine ID, after the prefix. */
    public static final String FALLBACK_SETTING = "machine-id.fallback.value";

    private final String settingPrefix;
    private final GenMethod genMethod;
    private final MachineIdRange range;
    private final String rangeSetting;
    private final int blockSize;
    private final MachineIdProvider provider;
    /** The fallback block, or null without one. */
    private final MachineIdBlock fallback;

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
        this(settingPrefix, genMethod, range, blockSize, provider, machineId, null, null, null);
    }

    /**
     * With a fallback machine ID ({@code machine-id.fallback.value}): the first of a block of {@code blockSize},
     * aligned from 0, outside {@code range}, issued under while {@code provider} cannot give a block
     * ({@link FallbackMachineIdProvider}, which then is {@link #provider()}).
     *
     * @param fallback the fallback's first machine ID, or null for none
     * @param timeSource the clock the fallback's switches read, when {@code fallback} is set
     * @param checkInterval how often the leased block is checked, when {@code fallback} is set
     * @throws InvalidSettingException also if the fallback is outside [0, 1023], does not start an aligned block, lies
     *         in the range, or is set with a fixed machine ID rather than a provider
     */
    public MachineIdAssignment(String settingPrefix, GenMethod genMethod, MachineIdRange range, int blockSize,
            MachineIdProvider provider, Long machineId, Long fallback, TimeSource timeSource, Duration checkInterval) {
        this.settingPrefix = settingPrefix;
        this.genMethod = genMethod;
        this.range = range;
        this.rangeSetting = rangeSetting(settingPrefix, genMethod);
        this.blockSize = checkBlockSize(blockSize);
        MachineIdProvider given = provider != null ? provider : fixed(machineId);
        this.fallback = checkFallback(fallback, provider);
        this.provider = this.fallback == null ? given : new FallbackMachineIdProvider(given, this.fallback,
                settingPrefix + FALLBACK_SETTING, timeSource, checkInterval);
    }

    /** The fallback block, or null without one. */
    public MachineIdBlock fallback() {
        return fallback;
    }

    /**
     * The fallback block, once it is known to lie in [0, 1023], to start a block aligned from 0 and to lie outside the
     * range, where no store hands it to another node.
     */
    private MachineIdBlock checkFallback(Long first, MachineIdProvider provider) {
        if (first == null) {
            return null;
        }
        String setting = settingPrefix + FALLBACK_SETTING;
        String allowed = fallbackAllowed(range, rangeSetting, blockSize, settingPrefix);
        if (provider == null) {
            throw new InvalidSettingException(setting, first, "unset with the fixed " + settingPrefix
                    + PropertyMachineIdProvider.SETTING, "is used only with a machine ID leased from a store (db, redis,"
                    + " zookeeper, etcd): a fixed machine ID is never unavailable");
        }
        requireLeased(settingPrefix, first, provider, "a provider that leases from a store (db, redis, zookeeper,"
                + " etcd)");
        String problem = fallbackProblem(settingPrefix, first, blockSize, genMethod, range);
        if (problem != null) {
            throw new InvalidSettingException(setting, first, allowed, problem);
        }
        return new MachineIdBlock(first, blockSize);
    }

    /**
     * What a fallback machine ID may be with {@code range} leased: the first of a block of {@code blockSize}, aligned
     * from 0, in [0, 1023] and outside the range; for instance {@code "the first machine ID of a block of 8 aligned
     * from 0 in [0, 1023] outside [924, 1015] (vesta.machine-id.server-range): 1016"}.
     */
    public static String fallbackAllowed(MachineIdRange range, String rangeSetting, int blockSize, String settingPrefix) {
        return allowedOutside(settingPrefix, blockSize, "[" + range.min() + ", " + range.max() + "] (" + rangeSetting
                + ")", "the range takes every machine ID; narrow it to leave room", range);
    }

    /**
     * What a fallback may be: {@code outside} in words, then the aligned block starts in [0, 1023] that no range of
     * {@code taken} touches, as runs ({@code "0-915 or 1016-1023, in steps of 4"}), or {@code none} when there are none.
     */
    private static String allowedOutside(String settingPrefix, int blockSize, String outside, String none,
            MachineIdRange... taken) {
        StringBuilder free = new StringBuilder();
        long runStart = -1;
        // One step past the space, so that a run reaching 1023 is written too.
        for (long start = 0; start <= IdLayout.MAX_MACHINE + 1; start += blockSize) {
            long first = start;
            boolean outsideAll = start + blockSize - 1 <= IdLayout.MAX_MACHINE
                    && Arrays.stream(taken).noneMatch(range -> overlaps(first, blockSize, range));
            if (outsideAll && runStart < 0) {
                runStart = start;
            } else if (!outsideAll && runStart >= 0) {
                long last = start - blockSize;
                free.append(free.length() == 0 ? "" : " or ").append(runStart == last ? Long.toString(last)
                        : runStart + "-" + last);
                runStart = -1;
            }
        }
        return (blockSize == 1 ? "a machine ID" : "the first machine ID of a block of " + blockSize
                + " aligned from 0 (" + settingPrefix + "machine-id.block-size)") + " in [0, " + IdLayout.MAX_MACHINE
                + "] outside " + outside + (free.length() == 0 ? ": none, " + none
                : ": " + free + (blockSize == 1 ? "" : ", in steps of " + blockSize)) + ", and each node's own";
    }

    /**
     * Refuses a fallback beside a provider whose machine ID is fixed (an IP list, a StatefulSet ordinal, a number): it
     * is never unavailable, so the fallback would never be used, and a setting that does nothing is an error.
     *
     * @param leased what the fallback may be set with instead: {@code "vesta.machine-id.strategy db, redis, ..."}
     * @throws InvalidSettingException naming {@code machine-id.fallback.value} and the provider
     */
    public static void requireLeased(String settingPrefix, long first, MachineIdProvider provider, String leased) {
        if (provider.leases().isEmpty()) {
            throw new InvalidSettingException(settingPrefix + FALLBACK_SETTING, first, "unset, or set with " + leased,
                    "is used only with a machine ID leased from a store: the machine ID of " + provider.describe()
                            + " is never unavailable");
        }
    }

    /**
     * Checks a fallback block against both ranges, for a caller that configures both (the starter): the range of its
     * own gen-method, as the generator does, and {@code other}, the range of the other kind of node (the server range
     * for an embedded node's fallback, the embedded range for a server's). The store hands those machine IDs to nodes
     * of the other kind, and the ranges are where an operator reads who issues under a machine ID (and what moving
     * the boundary between them would cut off). A generator knows its own range only; the checks it makes as well are
     * made here first, so that what the message allows lies outside both ranges. A block size that is not one of
     * {@link MachineIdRange#BLOCK_SIZES} is left to the generator's own check.
     *
     * @param genMethod the gen-method of the generator the fallback is for; {@code own} is its range
     * @throws InvalidSettingException naming {@code machine-id.fallback.value}, its value and the block starts in
     *         [0, 1023] outside both ranges
     */
    public static void requireFallbackOutsideBothRanges(String settingPrefix, long first, int blockSize,
            GenMethod genMethod, MachineIdRange own, MachineIdRange other) {
        if (!MachineIdRange.isBlockSize(blockSize)) {
            return;
        }
        boolean embedded = genMethod == GenMethod.EMBEDDED;
        String ownSetting = rangeSetting(settingPrefix, genMethod);
        String otherSetting = rangeSetting(settingPrefix, embedded ? GenMethod.REST : GenMethod.EMBEDDED);
        String problem = fallbackProblem(settingPrefix, first, blockSize, genMethod, own);
        if (problem == null && overlaps(first, blockSize, other)) {
            problem = "lies inside the machine-ID range [" + other.min() + ", " + other.max() + "] (" + otherSetting
                    + ") that the store hands out to " + (embedded ? "servers (gen-method central-server or rest)"
                    : "embedded nodes (gen-method embedded)") + ", not to this " + (embedded ? "embedded node"
                    : "server") + ". Take a fallback ID outside both ranges, narrowing one to leave room";
        }
        if (problem == null) {
            return;
        }
        String allowed = allowedOutside(settingPrefix, blockSize, "both [" + own.min() + ", " + own.max() + "] ("
                + ownSetting + ") and [" + other.min() + ", " + other.max() + "] (" + otherSetting + ")",
                "the ranges take every machine ID; narrow one to leave room", own, other);
        throw new InvalidSettingException(settingPrefix + FALLBACK_SETTING, first, allowed, problem);
    }

    /**
     * What is wrong with a fallback block of a generator of {@code genMethod} leasing from {@code range}: outside
     * [0, 1023], not aligned from 0, or inside the range; null when nothing is.
     */
    private static String fallbackProblem(String settingPrefix, long first, int blockSize, GenMethod genMethod,
            MachineIdRange range) {
        if (first < 0 || first > IdLayout.MAX_MACHINE) {
            return "is outside the machine-ID space [0, " + IdLayout.MAX_MACHINE + "]";
        }
        if (first % blockSize != 0 || first + blockSize - 1 > IdLayout.MAX_MACHINE) {
            return "does not start a block of " + blockSize + " aligned from 0 (" + settingPrefix
                    + "machine-id.block-size " + blockSize + ")";
        }
        if (overlaps(first, blockSize, range)) {
            return "lies inside the machine-ID range [" + range.min() + ", " + range.max() + "] ("
                    + rangeSetting(settingPrefix, genMethod) + ") that the store hands out to nodes of gen-method "
                    + kebab(genMethod) + ": another node may lease it. Narrow the range to leave room for fallback IDs";
        }
        return null;
    }

    private static boolean overlaps(long first, int blockSize, MachineIdRange range) {
        return first <= range.max() && first + blockSize - 1 >= range.min();
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
        if (fallback != null && first == fallback.first()) {
            return fallback;
        }
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
