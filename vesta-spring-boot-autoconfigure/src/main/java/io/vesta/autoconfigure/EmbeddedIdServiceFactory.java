package io.vesta.autoconfigure;

import static io.vesta.autoconfigure.PropertyChecks.checkDuration;
import static io.vesta.autoconfigure.PropertyChecks.checkLong;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.InvalidSettingException;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

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
     */
    public static EmbeddedIdService create(VestaProperties properties, MachineIdProvider provider, TimeSource timeSource,
            TimestampStore timestampStore) {
        Instant now = Instant.ofEpochMilli(timeSource.currentTimeMillis());
        EmbeddedIdService.Builder builder = EmbeddedIdService.builder()
                .type(properties.getType())
                .genMethod(properties.getGenMethod())
                .version(version(properties.getVersion()))
                .epoch(epoch(properties.getEpoch(), now))
                .sequencer(properties.getSequencer())
                .timeSource(timeSource)
                .machineIdRange(range(properties))
                .machineIdProvider(provider);
        Duration maxBackwardWait = properties.getClock().getMaxBackwardWait();
        if (maxBackwardWait != null) {
            builder.maxBackwardWait(checkDuration("vesta.clock.max-backward-wait", maxBackwardWait, Duration.ZERO,
                    EmbeddedIdService.MAX_BACKWARD_WAIT_LIMIT));
        }
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
        if (timestampStore != null || timeStore.isEnabled()) {
            builder.persistStep(checkDuration("vesta.time-store.persist-step", timeStore.getPersistStep(),
                    Duration.ofMillis(1), Duration.ofHours(1)));
        }
        return builder.build();
    }

    /** The machine-ID range of the node's gen-method. */
    public static MachineIdRange range(VestaProperties properties) {
        return range(properties, properties.getGenMethod());
    }

    /** The machine-ID range of {@code genMethod}: the embedded range for embedded, the server range otherwise. */
    static MachineIdRange range(VestaProperties properties, GenMethod genMethod) {
        String prefix = rangeProperty(genMethod);
        VestaProperties.Range range = genMethod == GenMethod.EMBEDDED ? properties.getMachineId().getEmbeddedRange()
                : properties.getMachineId().getServerRange();
        checkLong(prefix + ".min", range.getMin(), 0, 1023);
        checkLong(prefix + ".max", range.getMax(), range.getMin(), 1023);
        return new MachineIdRange(range.getMin(), range.getMax());
    }

    /** The property that holds {@code genMethod}'s machine-ID range. */
    static String rangeProperty(GenMethod genMethod) {
        return genMethod == GenMethod.EMBEDDED ? "vesta.machine-id.embedded-range" : "vesta.machine-id.server-range";
    }

    /** {@code value} as an instant, no later than {@code now}. */
    public static Instant epoch(String value, Instant now) {
        String allowed = "an ISO-8601 instant with an offset, such as 2015-01-01T00:00:00+08:00 or 2024-01-01T00:00:00Z, not after now ("
                + now + ")";
        Instant epoch;
        try {
            epoch = OffsetDateTime.parse(value == null ? "" : value.trim()).toInstant();
        } catch (DateTimeParseException e) {
            InvalidSettingException invalid = new InvalidSettingException("vesta.epoch", value, allowed, "is not an ISO-8601 instant");
            invalid.initCause(e);
            throw invalid;
        }
        if (epoch.isAfter(now)) {
            throw new InvalidSettingException("vesta.epoch", value, allowed, "is in the future");
        }
        return epoch;
    }

    private static long version(int version) {
        return checkLong("vesta.version", version, 0, 1);
    }
}
