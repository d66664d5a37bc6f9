package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.client.VestaClientProperties;
import io.vesta.autoconfigure.mybatis.VestaMyBatisProperties;
import io.vesta.autoconfigure.segment.VestaSegmentProperties;
import io.vesta.client.RemoteIdService;
import io.vesta.layout.IdCodec;
import io.vesta.machine.FallbackMachineIdProvider;
import io.vesta.machine.LeaseSettings;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.machine.etcd.EtcdMachineIdProvider;
import io.vesta.machine.redis.RedisMachineIdProvider;
import io.vesta.machine.zookeeper.ZooKeeperMachineIdProvider;
import io.vesta.segment.SegmentIdService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.io.ClassPathResource;
import io.vesta.IdFormat;
import io.vesta.autoconfigure.jackson.VestaJacksonProperties;
import io.vesta.jackson.VestaIdJacksonModule;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every default of a {@code vesta.*} property is defined once, as a constant of the engine class that uses it. This
 * holds the IDE metadata (what users read) and the properties classes (what they get) equal to those constants.
 */
class ConfigurationMetadataDefaultsTests {

    /** Each property whose default the engine defines, and that constant. */
    private static final Map<String, Object> ENGINE_DEFAULTS = new LinkedHashMap<>();

    static {
        ENGINE_DEFAULTS.put("vesta.type", EmbeddedIdService.DEFAULT_TYPE);
        ENGINE_DEFAULTS.put("vesta.gen-method", EmbeddedIdService.DEFAULT_GEN_METHOD);
        ENGINE_DEFAULTS.put("vesta.version", (int) EmbeddedIdService.DEFAULT_VERSION);
        ENGINE_DEFAULTS.put("vesta.sequencer", EmbeddedIdService.DEFAULT_SEQUENCER);
        ENGINE_DEFAULTS.put("vesta.epoch", IdCodec.DEFAULT_EPOCH_TEXT);
        ENGINE_DEFAULTS.put("vesta.time-store.persist-step", EmbeddedIdService.DEFAULT_PERSIST_STEP);
        ENGINE_DEFAULTS.put("vesta.machine-id.block-size", EmbeddedIdService.DEFAULT_MACHINE_ID_BLOCK_SIZE);
        ENGINE_DEFAULTS.put("vesta.machine-id.embedded-range.min", MachineIdRange.EMBEDDED.min());
        ENGINE_DEFAULTS.put("vesta.machine-id.embedded-range.max", MachineIdRange.EMBEDDED.max());
        ENGINE_DEFAULTS.put("vesta.machine-id.server-range.min", MachineIdRange.SERVER.min());
        ENGINE_DEFAULTS.put("vesta.machine-id.server-range.max", MachineIdRange.SERVER.max());
        ENGINE_DEFAULTS.put("vesta.machine-id.fallback.check-interval", FallbackMachineIdProvider.DEFAULT_CHECK_INTERVAL);
        ENGINE_DEFAULTS.put("vesta.machine-id.db.table", DbMachineIdProvider.DEFAULT_TABLE);
        ENGINE_DEFAULTS.put("vesta.machine-id.db.lease", DbMachineIdProvider.DEFAULT_LEASE);
        ENGINE_DEFAULTS.put("vesta.machine-id.db.heartbeat", DbMachineIdProvider.DEFAULT_HEARTBEAT);
        ENGINE_DEFAULTS.put("vesta.machine-id.redis.key", RedisMachineIdProvider.DEFAULT_KEY);
        ENGINE_DEFAULTS.put("vesta.machine-id.redis.lease", RedisMachineIdProvider.DEFAULT_LEASE);
        ENGINE_DEFAULTS.put("vesta.machine-id.redis.heartbeat", RedisMachineIdProvider.DEFAULT_HEARTBEAT);
        ENGINE_DEFAULTS.put("vesta.machine-id.redis.max-clock-skew", RedisMachineIdProvider.DEFAULT_MAX_CLOCK_SKEW);
        ENGINE_DEFAULTS.put("vesta.machine-id.zookeeper.namespace", ZooKeeperMachineIdProvider.DEFAULT_NAMESPACE);
        ENGINE_DEFAULTS.put("vesta.machine-id.zookeeper.report-interval", ZooKeeperMachineIdProvider.DEFAULT_REPORT_INTERVAL);
        ENGINE_DEFAULTS.put("vesta.machine-id.zookeeper.max-clock-difference", ZooKeeperMachineIdProvider.DEFAULT_MAX_CLOCK_DIFFERENCE);
        ENGINE_DEFAULTS.put("vesta.machine-id.zookeeper.reclaim-after", ZooKeeperMachineIdProvider.DEFAULT_RECLAIM_AFTER);
        ENGINE_DEFAULTS.put("vesta.machine-id.zookeeper.connection-timeout", ZooKeeperMachineIdProvider.DEFAULT_CONNECTION_TIMEOUT);
        ENGINE_DEFAULTS.put("vesta.machine-id.zookeeper.lease", LeaseSettings.DEFAULT_LEASE);
        ENGINE_DEFAULTS.put("vesta.machine-id.etcd.prefix", EtcdMachineIdProvider.DEFAULT_PREFIX);
        ENGINE_DEFAULTS.put("vesta.machine-id.etcd.lease", EtcdMachineIdProvider.DEFAULT_LEASE);
        ENGINE_DEFAULTS.put("vesta.machine-id.etcd.heartbeat", EtcdMachineIdProvider.DEFAULT_HEARTBEAT);
        ENGINE_DEFAULTS.put("vesta.machine-id.etcd.max-clock-skew", EtcdMachineIdProvider.DEFAULT_MAX_CLOCK_SKEW);
        ENGINE_DEFAULTS.put("vesta.machine-id.etcd.connect-timeout", EtcdMachineIdProvider.DEFAULT_CONNECT_TIMEOUT);
        ENGINE_DEFAULTS.put("vesta.client.prefetch", RemoteIdService.DEFAULT_PREFETCH);
        ENGINE_DEFAULTS.put("vesta.client.max-prefetch", RemoteIdService.DEFAULT_MAX_PREFETCH);
        ENGINE_DEFAULTS.put("vesta.client.batch-lifetime", RemoteIdService.DEFAULT_BATCH_LIFETIME);
        ENGINE_DEFAULTS.put("vesta.client.refill-threshold", RemoteIdService.DEFAULT_REFILL_THRESHOLD);
        ENGINE_DEFAULTS.put("vesta.client.timeout", RemoteIdService.DEFAULT_TIMEOUT);
        ENGINE_DEFAULTS.put("vesta.client.backoff.initial", RemoteIdService.DEFAULT_INITIAL_BACKOFF);
        ENGINE_DEFAULTS.put("vesta.client.backoff.max", RemoteIdService.DEFAULT_MAX_BACKOFF);
        ENGINE_DEFAULTS.put("vesta.segment.table", SegmentIdService.DEFAULT_TABLE);
        ENGINE_DEFAULTS.put("vesta.segment.refill-threshold", SegmentIdService.DEFAULT_REFILL_THRESHOLD);
        ENGINE_DEFAULTS.put("vesta.segment.target-duration", SegmentIdService.DEFAULT_TARGET_DURATION);
        ENGINE_DEFAULTS.put("vesta.segment.max-step", SegmentIdService.DEFAULT_MAX_STEP);
        ENGINE_DEFAULTS.put("vesta.segment.default-step", SegmentIdService.DEFAULT_STEP);
        ENGINE_DEFAULTS.put("vesta.segment.retry-interval", SegmentIdService.DEFAULT_RETRY_INTERVAL);
        ENGINE_DEFAULTS.put("vesta.segment.timeout", SegmentIdService.DEFAULT_TIMEOUT);
        ENGINE_DEFAULTS.put("vesta.segment.loader-threads", SegmentIdService.DEFAULT_LOADER_THREADS);
        ENGINE_DEFAULTS.put("vesta.segment.idle-timeout", SegmentIdService.DEFAULT_IDLE_TIMEOUT);
        ENGINE_DEFAULTS.put("vesta.segment.max-buffered-tags", SegmentIdService.DEFAULT_MAX_BUFFERED_TAGS);
    }

    /**
     * Defaults that belong to the Spring module alone: switches that turn a capability on, the strategy and mode
     * choices, where this application keeps its high-water marks, and when its liveness health gives up on a lost
     * machine ID.
     */
    private static final Set<String> SPRING_DEFAULTS = Set.of("vesta.mode", "vesta.machine-id.strategy",
            "vesta.machine-id.liveness-timeout",
            "vesta.time-store.enabled", "vesta.time-store.directory", "vesta.machine-id.db.initialize-schema",
            "vesta.client.fallback", "vesta.jackson.ids-as-strings", "vesta.jackson.id-format", "vesta.segment.enabled",
            "vesta.segment.initialize-schema", "vesta.segment.auto-create", "vesta.segment.admin-enabled", "vesta.server.enabled",
            "vesta.server.ids-enabled", "vesta.server.make-id-enabled", "vesta.server.lease-admin-enabled",
            "vesta.public-id.enabled", "vesta.public-id.tweak");

    /** Spring-only defaults of Vesta's properties outside {@code vesta.*}: switches under Boot's own prefixes. */
    private static final Set<String> MANAGEMENT_DEFAULTS = Set.of("management.health.vesta.enabled");

    /** The properties classes, unbound, by the prefix they bind. */
    private static final List<Object> PROPERTIES = List.of(new VestaProperties(), new VestaClientProperties(),
            new VestaSegmentProperties(), new VestaMyBatisProperties());

    private final Map<String, JsonNode> metadata = readMetadata();

    @Test
    void everyDefaultInTheMetadataIsTheEnginesOrDeclaredSpringOnly() {
        Set<String> withDefaults = new TreeSet<>();
        metadata.forEach((name, property) -> {
            if ((name.startsWith("vesta.") || MANAGEMENT_DEFAULTS.contains(name)) && property.hasNonNull("defaultValue")) {
                withDefaults.add(name);
            }
        });
        Set<String> expected = new TreeSet<>(ENGINE_DEFAULTS.keySet());
        expected.addAll(SPRING_DEFAULTS);
        expected.addAll(MANAGEMENT_DEFAULTS);
        assertThat(withDefaults).isEqualTo(expected);
    }

    @Test
    void theMetadataStatesEachEngineDefault() {
        ENGINE_DEFAULTS.forEach((name, constant) -> {
            JsonNode property = metadata.get(name);
            assertThat(property).as("metadata of %s", name).isNotNull();
            Object stated = ApplicationConversionService.getSharedInstance()
                    .convert(property.get("defaultValue").asString(), constant.getClass());
            assertThat(stated).as("metadata default of %s", name).isEqualTo(constant);
        });
    }

    @Test
    void thePropertiesDefaultToTheEngineConstantsOrLeaveThemToTheEngine() {
        ENGINE_DEFAULTS.forEach((name, constant) -> {
            Object unbound = unboundValue(name);
            // Unset means the builder's own default (for classes of modules that may be absent), which is the constant.
            if (unbound != null) {
                assertThat(unbound).as("default of %s", name).isEqualTo(constant);
            }
        });
    }

    @Test
    void theJacksonIdFormatDefaultsToWhatThePlainModuleWrites() {
        String stated = metadata.get("vesta.jackson.id-format").get("defaultValue").asString();
        assertThat(stated).isEqualTo(new VestaJacksonProperties().getIdFormat());
        assertThat(IdFormat.of(stated)).isEqualTo(new VestaIdJacksonModule().format());
        assertThat(metadata.get("vesta.jackson.id-format").get("description").asString()).contains("base32", "base62");
    }

    @Test
    void theJacksonIdFormatHintsListEveryFormatItTakes() {
        List<String> hinted = new java.util.ArrayList<>();
        for (JsonNode hint : readDocument().get("hints")) {
            if (hint.get("name").asString().equals("vesta.jackson.id-format")) {
                hint.get("values").forEach(value -> hinted.add(value.get("value").asString()));
            }
        }
        assertThat(String.join(", ", hinted)).isEqualTo(IdFormat.allowedNames());
        hinted.forEach(name -> assertThat(IdFormat.of(name).name()).isEqualToIgnoringCase(name));
    }

    private static Object unboundValue(String name) {
        for (Object properties : PROPERTIES) {
            String prefix = properties.getClass().getAnnotation(ConfigurationProperties.class).value() + ".";
            if (name.startsWith(prefix) && (properties instanceof VestaProperties) == !isOwnPrefix(name)) {
                return new BeanWrapperImpl(properties).getPropertyValue(camelCasePath(name.substring(prefix.length())));
            }
        }
        throw new IllegalStateException("No properties class binds " + name);
    }

    /** Whether a prefix of its own (vesta.client, vesta.segment, vesta.mybatis) binds the property, not VestaProperties. */
    private static boolean isOwnPrefix(String name) {
        return name.startsWith("vesta.client.") || name.startsWith("vesta.segment.") || name.startsWith("vesta.mybatis.");
    }

    private static String camelCasePath(String kebab) {
        StringBuilder path = new StringBuilder();
        boolean upper = false;
        for (char c : kebab.toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                path.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return path.toString();
    }

    private static Map<String, JsonNode> readMetadata() {
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        for (JsonNode property : readDocument().get("properties")) {
            byName.put(property.get("name").asString(), property);
        }
        return byName;
    }

    private static JsonNode readDocument() {
        try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
            return JsonMapper.shared().readTree(in);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("The build must generate META-INF/spring-configuration-metadata.json", e);
        }
    }
}
