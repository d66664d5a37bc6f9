package io.vesta.autoconfigure.segment;

import io.vesta.segment.SegmentIdService;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Configuration of segment mode, dense per-tag numbers from a shared table: {@code vesta.segment.*}. The defaults
 * are {@link SegmentIdService}'s; the configuration processor cannot read another class's constants, so the IDE
 * metadata states them in {@code additional-spring-configuration-metadata.json}, and
 * {@code ConfigurationMetadataDefaultsTests} holds the two equal.
 */
@ConfigurationProperties("vesta.segment")
public class VestaSegmentProperties {

    /** Whether to create a SegmentIdService on the application's DataSource. */
    private boolean enabled = false;

    /** The segment table: an unquoted SQL identifier, optionally schema.table. */
    private String table = SegmentIdService.DEFAULT_TABLE;

    /** When to create the segment table at start-up if it is missing, with the shipped script for PostgreSQL, MySQL/MariaDB or H2: embedded (only on an embedded database, as Boot does for its own schemas), always, or never (migrations own the schema). */
    private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

    /** Share of a segment used before the next one is loaded in the background, at least 0 and below 1. */
    private double refillThreshold = SegmentIdService.DEFAULT_REFILL_THRESHOLD;

    /** How long a segment should last: one used up faster doubles the next step, one lasting twice as long halves it. From 1ms to 1d. */
    private Duration targetDuration = SegmentIdService.DEFAULT_TARGET_DURATION;

    /** Largest step that doubling reaches, 1 to 1000000000. The table's step of a tag is the floor. */
    private int maxStep = SegmentIdService.DEFAULT_MAX_STEP;

    /** Whether every tag with no row in the table is created on first use (with default-step), by the application's own calls and by POST /vesta/segment/{bizTag}; never by a GET. Off: an unknown tag is an error. Meant for an application whose tags come from its own code; a server prefers auto-create-tags or admin-enabled. */
    private boolean autoCreate = false;

    /** A Java regular expression: tags with no row that match it whole are created on first use (with default-step), by the application's own calls and by POST /vesta/segment/{bizTag}; never by a GET. Unset: none. Not together with auto-create=true. */
    private String autoCreateTags;

    /** Whether POST /vesta/admin/segments/{bizTag} creates tags (a server: vesta.server.enabled=true). Off by default; needs vesta.server.admin-tokens. */
    private boolean adminEnabled = false;

    /** How long a tag's buffer may stay unused before it is dropped, from 1s to 365d; its unused numbers are skipped, as at a restart. */
    private Duration idleTimeout = SegmentIdService.DEFAULT_IDLE_TIMEOUT;

    /** Most tags that keep buffers (and per-tag meters) in memory, 1 to 100000; one more drops the least recently used, skipping its unused numbers. */
    private int maxBufferedTags = SegmentIdService.DEFAULT_MAX_BUFFERED_TAGS;

    /** Step of the tags created on first use, 1 to 1000000000. */
    private int defaultStep = SegmentIdService.DEFAULT_STEP;

    /** How long after a failed background load the next background attempt waits, up to 1m. Callers that find both segments used up try at once. */
    private Duration retryInterval = SegmentIdService.DEFAULT_RETRY_INTERVAL;

    /** Threads that load segments in the background, 1 to 64. Idle threads exit. */
    private int loaderThreads = SegmentIdService.DEFAULT_LOADER_THREADS;

    /** Query timeout of every statement on the segment table, a whole number of seconds from 1s to 10m. A statement still running then (a row locked by another transaction, a database that hangs) is cancelled and rolled back, and a caller waiting for a segment gets an error instead of waiting as long as the driver would. */
    private Duration timeout = SegmentIdService.DEFAULT_TIMEOUT;

    /** Dated tags by tag: numbers that are the date (yyyyMMdd or yyyyMM in the tag's zone) and a zero-padded counter that starts again each period, from a row per period (orders:20261204) created on the period's first call. Per tag: period (day or month; day by default), zone (a time-zone ID; UTC by default, the same on every node), width (the counter's digits: 1 to 10 for a day, 1 to 12 for a month; 6 by default) and start (the first counter of each period, 0 to 10^width - 1; 1 by default). */
    private Map<String, DatedTag> datedTags = new LinkedHashMap<>();

    /** One dated tag: {@code vesta.segment.dated-tags.<tag>.*}. */
    public static class DatedTag {

        /** The default zone: UTC, the same on every node whatever the system's zone (nodes in different system zones would otherwise date one instant differently). */
        public static final String DEFAULT_ZONE = "UTC";
        public static final int DEFAULT_WIDTH = 6;
        public static final long DEFAULT_START = 1;

        /** How long a counter lasts: day (yyyyMMdd) or month (yyyyMM). */
        private io.vesta.segment.DatedTag.Period period = io.vesta.segment.DatedTag.Period.DAY;

        /** The time zone whose date the numbers carry, such as Europe/Paris; UTC by default. Every node must use the same. */
        private String zone = DEFAULT_ZONE;

        /** The counter's digits, zero-padded: 1 to 10 for a day, 1 to 12 for a month. */
        private int width = DEFAULT_WIDTH;

        /** The first counter of each period, 0 to 10^width - 1. */
        private long start = DEFAULT_START;

        public io.vesta.segment.DatedTag.Period getPeriod() {
            return period;
        }

        public void setPeriod(io.vesta.segment.DatedTag.Period period) {
            this.period = period;
        }

        public String getZone() {
            return zone;
        }

        public void setZone(String zone) {
            this.zone = zone;
        }

        public int getWidth() {
            return width;
        }

        public void setWidth(int width) {
            this.width = width;
        }

        public long getStart() {
            return start;
        }

        public void setStart(long start) {
            this.start = start;
        }
    }

    public Map<String, DatedTag> getDatedTags() {
        return datedTags;
    }

    public void setDatedTags(Map<String, DatedTag> datedTags) {
        this.datedTags = datedTags;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public DatabaseInitializationMode getInitializeSchema() {
        return initializeSchema;
    }

    public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public double getRefillThreshold() {
        return refillThreshold;
    }

    public void setRefillThreshold(double refillThreshold) {
        this.refillThreshold = refillThreshold;
    }

    public Duration getTargetDuration() {
        return targetDuration;
    }

    public void setTargetDuration(Duration targetDuration) {
        this.targetDuration = targetDuration;
    }

    public int getMaxStep() {
        return maxStep;
    }

    public void setMaxStep(int maxStep) {
        this.maxStep = maxStep;
    }

    public boolean isAutoCreate() {
        return autoCreate;
    }

    public void setAutoCreate(boolean autoCreate) {
        this.autoCreate = autoCreate;
    }

    public String getAutoCreateTags() {
        return autoCreateTags;
    }

    public void setAutoCreateTags(String autoCreateTags) {
        this.autoCreateTags = autoCreateTags;
    }

    public boolean isAdminEnabled() {
        return adminEnabled;
    }

    public void setAdminEnabled(boolean adminEnabled) {
        this.adminEnabled = adminEnabled;
    }

    public Duration getIdleTimeout() {
        return idleTimeout;
    }

    public void setIdleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
    }

    public int getMaxBufferedTags() {
        return maxBufferedTags;
    }

    public void setMaxBufferedTags(int maxBufferedTags) {
        this.maxBufferedTags = maxBufferedTags;
    }

    public int getDefaultStep() {
        return defaultStep;
    }

    public void setDefaultStep(int defaultStep) {
        this.defaultStep = defaultStep;
    }

    public Duration getRetryInterval() {
        return retryInterval;
    }

    public void setRetryInterval(Duration retryInterval) {
        this.retryInterval = retryInterval;
    }

    public int getLoaderThreads() {
        return loaderThreads;
    }

    public void setLoaderThreads(int loaderThreads) {
        this.loaderThreads = loaderThreads;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }
}
