package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.EmbeddedIdServiceBuilder;
import io.vesta.GenMethod;
import io.vesta.InvalidSettingException;
import io.vesta.machine.MachineIdAssignment;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.function.Consumer;

/**
 * Turns {@link VestaProperties} into an {@link EmbeddedIdService} under a machine ID the provider gives
 * ({@link MachineIdConfiguration} makes it). Public for the auto-configurations of other packages (the server's
 * two generators, the client's fallback).
 */
public final class EmbeddedIdServiceFactory {

    private EmbeddedIdServiceFactory() {
    }

    /**
     * The generator {@code vesta.*} describes, under {@code provider}'s machine ID.
     * @param timestampStore the high-water-mark store to use, or null for {@code vesta.time-store.*}'s
     * @param customizer applied after the properties, before the builder checks the settings
     */
    public static EmbeddedIdService create(VestaProperties properties, MachineIdProvider provider, TimeSource timeSource,
            TimestampStore timestampStore, Consumer<EmbeddedIdServiceBuilder> customizer) {
        return create(properties, properties.getGenMethod(), provider, timeSource, timestampStore, customizer);
    }

    /**
     * The generator {@code vesta.*} describes, but of {@code genMethod} whatever {@code vesta.gen-method} says (and
     * with the machine-ID range of that gen-method): how a server makes its two generators from one configuration.
     */
    public static EmbeddedIdService create(VestaProperties properties, GenMethod genMethod, MachineIdProvider provider,
            TimeSource timeSource, TimestampStore timestampStore, Consumer<EmbeddedIdServiceBuilder> customizer) {
        MachineIdProperties.Range range = genMethod == GenMethod.EMBEDDED
                ? properties.getMachineId().getEmbeddedRange() : properties.getMachineId().getServerRange();
        // The builder checks every setting under the "vesta." prefix: nothing is checked twice here.
        EmbeddedIdServiceBuilder builder = EmbeddedIdService.builder()
                .settingPrefix("vesta.")
                .type(properties.getType())
                .genMethod(genMethod)
                .version(properties.getVersion())
                .epoch(epoch(properties.getEpoch()))
                .sequencer(properties.getSequencer())
                .timeSource(timeSource)
                .machineIdRange(range.getMin(), range.getMax())
                .machineIdProvider(provider)
                .machineIdBlockSize(properties.getMachineId().getBlockSize())
                .maxBackwardWait(properties.getClock().getMaxBackwardWait());
        VestaProperties.TimeStore timeStore = properties.getTimeStore();
        if (timestampStore != null) {
            builder.timestampStore(timestampStore);
        } else if (timeStore.isEnabled()) {
            if (timeStore.getDirectory() == null) {
                throw new InvalidSettingException("vesta.time-store.directory", null,
                        "a directory this process may write, such as /var/lib/vesta",
                        "is required while vesta.time-store.enabled is true");
            }
            builder.timestampStoreDirectory(timeStore.getDirectory());
        }
        builder.persistStep(timeStore.getPersistStep());
        fallback(properties.getMachineId(), genMethod, provider, builder);
        customizer.accept(builder);
        return builder.build();
    }

    /**
     * {@code vesta.machine-id.fallback.*} onto the builder, for every generator the starter makes (an embedded node, both
     * generators of a central server, which share the one fallback ID as they share the leased one, and a client's
     * embedded fallback). Checked here: that the machine ID is leased from a store (a fixed one, which Spring hands the
     * builder as a provider too, is never unavailable) and that the fallback lies outside the other kind of node's range,
     * which only this configuration knows (with what is allowed outside both ranges); the builder checks the rest (a
     * time store, the check interval).
     */
    private static void fallback(MachineIdProperties machineId, GenMethod genMethod, MachineIdProvider provider,
            EmbeddedIdServiceBuilder builder) {
        Long first = machineId.getFallback().getValue();
        if (first == null) {
            return;
        }
        // The generator makes this check too; first here, so that it comes before the ranges' check.
        MachineIdAssignment.requireLeased("vesta.", first, provider, "vesta.machine-id.strategy db, redis, zookeeper"
                + " or etcd");
        boolean embedded = genMethod == GenMethod.EMBEDDED;
        MachineIdAssignment.requireFallbackOutsideBothRanges("vesta.", first, machineId.getBlockSize(), genMethod,
                range(embedded ? machineId.getEmbeddedRange() : machineId.getServerRange(), genMethod),
                range(embedded ? machineId.getServerRange() : machineId.getEmbeddedRange(),
                        embedded ? GenMethod.REST : GenMethod.EMBEDDED));
        builder.machineIdFallback(first).machineIdFallbackCheckInterval(machineId.getFallback().getCheckInterval());
    }

    private static MachineIdRange range(MachineIdProperties.Range range, GenMethod genMethod) {
        return MachineIdRange.of(MachineIdAssignment.rangeSetting("vesta.", genMethod), range.getMin(), range.getMax());
    }

    /**
     * {@code vesta.epoch} as an instant; whether it may be used (not in the future, recent enough for the type's time
     * field) is the builder's check.
     */
    public static Instant epoch(String value) {
        try {
            return OffsetDateTime.parse(value == null ? "" : value.trim()).toInstant();
        } catch (DateTimeParseException e) {
            InvalidSettingException invalid = new InvalidSettingException("vesta.epoch", value,
                    "an ISO-8601 instant with an offset, such as 2015-01-01T00:00:00+08:00 or 2024-01-01T00:00:00Z",
                    "is not an ISO-8601 instant");
            invalid.initCause(e);
            throw invalid;
        }
    }
}
