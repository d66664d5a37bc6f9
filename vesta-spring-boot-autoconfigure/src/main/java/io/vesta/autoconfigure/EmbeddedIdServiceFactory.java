package io.vesta.autoconfigure;

import static io.vesta.autoconfigure.PropertyChecks.checkDuration;
import static io.vesta.autoconfigure.PropertyChecks.checkLong;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.machine.IpListMachineIdProvider;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.PropertyMachineIdProvider;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Turns {@link VestaProperties} into engine settings, checking each against what the engine allows so that a
 * bad value fails start-up with the property's own name rather than the engine's argument name. Public for the
 * auto-configurations of other packages (the server's two generators, the client's fallback).
 */
public final class EmbeddedIdServiceFactory {

    private EmbeddedIdServiceFactory() {
    }

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
                throw new InvalidVestaPropertyException("vesta.time-store.directory", null,
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

    /** The provider {@code vesta.machine-id.strategy} selects, for a strategy that needs no DataSource. */
    public static MachineIdProvider machineIdProvider(VestaProperties properties) {
        return machineIdProvider(properties, null, TimeSource.system(), null, EmbeddedIdServiceFactory.class.getClassLoader());
    }

    /**
     * The provider {@code vesta.machine-id.strategy} selects, with its settings checked.
     * @param dataSource the application's DataSource for the db strategy, or null if it has none
     * @param port the application's configured server port, used in the default owner of shared strategies
     */
    public static MachineIdProvider machineIdProvider(VestaProperties properties, DataSource dataSource, TimeSource timeSource,
            String port, ClassLoader classLoader) {
        VestaProperties.MachineId machineId = properties.getMachineId();
        MachineIdRange range = range(properties);
        return switch (machineId.getStrategy()) {
            case DB -> SharedMachineIdProviders.database(machineId.getDb(), dataSource, timeSource, port);
            case ZOOKEEPER -> SharedMachineIdProviders.zooKeeper(machineId.getZookeeper(), timeSource, port, classLoader);
            case PROPERTY -> {
                Long value = machineId.getValue();
                if (value == null) {
                    throw new InvalidVestaPropertyException("vesta.machine-id.value", null, rangeText(properties, range),
                            "is required when vesta.machine-id.strategy is property");
                }
                if (!range.contains(value)) {
                    throw new InvalidVestaPropertyException("vesta.machine-id.value", value, rangeText(properties, range),
                            "is outside the machine-ID range of gen-method " + genMethodText(properties.getGenMethod()));
                }
                yield new PropertyMachineIdProvider(value, "vesta.machine-id.value");
            }
            case IP_LIST -> {
                if (machineId.getIpList().isEmpty()) {
                    throw new InvalidVestaPropertyException("vesta.machine-id.ip-list", null,
                            "a comma-separated list of the IP addresses of every node, at most " + range.size() + " entries",
                            "is required when vesta.machine-id.strategy is ip-list");
                }
                if (machineId.getIpList().size() > range.size()) {
                    throw new InvalidVestaPropertyException("vesta.machine-id.ip-list", String.join(",", machineId.getIpList()),
                            "at most " + range.size() + " addresses (" + rangeText(properties, range) + ")",
                            "lists " + machineId.getIpList().size() + " addresses");
                }
                try {
                    yield new IpListMachineIdProvider(machineId.getIpList(), IpListMachineIdProvider::localAddresses,
                            "vesta.machine-id.ip-list");
                } catch (IllegalArgumentException e) {
                    throw new InvalidVestaPropertyException("vesta.machine-id.ip-list", String.join(",", machineId.getIpList()),
                            "IPv4 or IPv6 literals, each listed once", "is malformed: " + e.getMessage(), e);
                }
            }
        };
    }

    /** The machine-ID range of the node's gen-method. */
    public static MachineIdRange range(VestaProperties properties) {
        boolean embedded = properties.getGenMethod() == GenMethod.EMBEDDED;
        String prefix = embedded ? "vesta.machine-id.embedded-range" : "vesta.machine-id.server-range";
        VestaProperties.Range range = embedded ? properties.getMachineId().getEmbeddedRange()
                : properties.getMachineId().getServerRange();
        checkLong(prefix + ".min", range.getMin(), 0, 1023);
        checkLong(prefix + ".max", range.getMax(), range.getMin(), 1023);
        return new MachineIdRange(range.getMin(), range.getMax());
    }

    public static Instant epoch(String value, Instant now) {
        String allowed = "an ISO-8601 instant with an offset, such as 2015-01-01T00:00:00+08:00 or 2024-01-01T00:00:00Z, not after now ("
                + now + ")";
        Instant epoch;
        try {
            epoch = OffsetDateTime.parse(value == null ? "" : value.trim()).toInstant();
        } catch (DateTimeParseException e) {
            throw new InvalidVestaPropertyException("vesta.epoch", value, allowed, "is not an ISO-8601 instant", e);
        }
        if (epoch.isAfter(now)) {
            throw new InvalidVestaPropertyException("vesta.epoch", value, allowed, "is in the future");
        }
        return epoch;
    }

    private static long version(int version) {
        return checkLong("vesta.version", version, 0, 1);
    }

    private static String rangeText(VestaProperties properties, MachineIdRange range) {
        String rangeProperty = properties.getGenMethod() == GenMethod.EMBEDDED ? "vesta.machine-id.embedded-range"
                : "vesta.machine-id.server-range";
        return "a machine ID in [" + range.min() + ", " + range.max() + "] (" + rangeProperty + ", for gen-method "
                + genMethodText(properties.getGenMethod()) + ")";
    }

    static String genMethodText(GenMethod genMethod) {
        return genMethod.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
