package io.vesta.segment;

import io.vesta.InvalidSettingException;
import io.vesta.SegmentNumbers;
import io.vesta.SettingNames;
import io.vesta.jdbc.TableScript;
import io.vesta.time.TimeSource;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import static io.vesta.segment.SegmentIdService.DEFAULT_IDLE_TIMEOUT;
import static io.vesta.segment.SegmentIdService.DEFAULT_LOADER_THREADS;
import static io.vesta.segment.SegmentIdService.DEFAULT_MAX_BUFFERED_TAGS;
import static io.vesta.segment.SegmentIdService.DEFAULT_MAX_STEP;
import static io.vesta.segment.SegmentIdService.DEFAULT_REFILL_THRESHOLD;
import static io.vesta.segment.SegmentIdService.DEFAULT_RETRY_INTERVAL;
import static io.vesta.segment.SegmentIdService.DEFAULT_STEP;
import static io.vesta.segment.SegmentIdService.DEFAULT_TABLE;
import static io.vesta.segment.SegmentIdService.DEFAULT_TARGET_DURATION;
import static io.vesta.segment.SegmentIdService.DEFAULT_TIMEOUT;
import static io.vesta.segment.SegmentIdService.MAX_BUFFERED_TAGS_LIMIT;
import static io.vesta.segment.SegmentIdService.MAX_TIMEOUT;
import static io.vesta.segment.SegmentIdService.MIN_TIMEOUT;
import static io.vesta.segment.SegmentIdService.STEP_LIMIT;
import static io.vesta.InvalidSettingException.requireInRange;
import static io.vesta.InvalidSettingException.requireSet;

/** Settings of a {@link SegmentIdService}; every setting is checked in {@link #build()}. */
public final class SegmentIdServiceBuilder {

    DataSource dataSource;
    String table = DEFAULT_TABLE;
    double refillThreshold = DEFAULT_REFILL_THRESHOLD;
    Duration targetDuration = DEFAULT_TARGET_DURATION;
    int maxStep = DEFAULT_MAX_STEP;
    boolean autoCreate;
    String autoCreateTags;
    int defaultStep = DEFAULT_STEP;
    Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    int maxBufferedTags = DEFAULT_MAX_BUFFERED_TAGS;
    Duration retryInterval = DEFAULT_RETRY_INTERVAL;
    int loaderThreads = DEFAULT_LOADER_THREADS;
    Duration timeout = DEFAULT_TIMEOUT;
    TimeSource timeSource = TimeSource.system();
    String settingPrefix = "";
    final List<DatedTag> datedTags = new ArrayList<>();

    SegmentIdServiceBuilder() {
    }

    /** Where the segment table lives; required. A pooled DataSource: every load borrows a connection. */
    public SegmentIdServiceBuilder dataSource(DataSource dataSource) {
        this.dataSource = dataSource;
        return this;
    }

    /** The segment table, an unquoted SQL identifier, optionally schema.table; {@value SegmentIdService#DEFAULT_TABLE} by default. */
    public SegmentIdServiceBuilder table(String table) {
        this.table = table;
        return this;
    }

    /** The share of a segment used before the next is loaded in the background, in [0, 1); 0.1 by default. */
    public SegmentIdServiceBuilder refillThreshold(double refillThreshold) {
        this.refillThreshold = refillThreshold;
        return this;
    }

    /** How long a segment should last: faster doubles the step, slower than twice this halves it; 15 min by default. */
    public SegmentIdServiceBuilder targetDuration(Duration targetDuration) {
        this.targetDuration = targetDuration;
        return this;
    }

    /** The largest step doubling reaches, in [1, 1000000000]; 1,000,000 by default. */
    public SegmentIdServiceBuilder maxStep(int maxStep) {
        this.maxStep = maxStep;
        return this;
    }

    /**
     * Whether every tag with no row is created on first use by {@link SegmentIdService#nextId} and
     * {@link SegmentIdService#nextIds} (with {@link #defaultStep(int)}); off by default. Meant for an application whose tags come from its own code; in
     * front of a network, prefer {@link #autoCreateTags(String)} or {@link SegmentIdService#createTag}.
     */
    public SegmentIdServiceBuilder autoCreate(boolean autoCreate) {
        this.autoCreate = autoCreate;
        return this;
    }

    /**
     * A regular expression: tags with no row that match it, whole, are created on first use by
     * {@link SegmentIdService#nextId} and {@link SegmentIdService#nextIds} (with {@link #defaultStep(int)}); none by default. Cannot be combined with
     * {@link #autoCreate(boolean) autoCreate(true)}, which covers every tag.
     */
    public SegmentIdServiceBuilder autoCreateTags(String autoCreateTags) {
        this.autoCreateTags = autoCreateTags;
        return this;
    }

    /**
     * How long a tag's buffer may stay unused before it is dropped (its unused numbers skipped, as at a restart),
     * in [1 s, 365 d]; 1 h by default.
     */
    public SegmentIdServiceBuilder idleTimeout(Duration idleTimeout) {
        this.idleTimeout = idleTimeout;
        return this;
    }

    /**
     * The most tags that keep buffers in memory, in [1, 100000]; 1,000 by default. Loading one more drops the
     * least recently used (its unused numbers skipped).
     */
    public SegmentIdServiceBuilder maxBufferedTags(int maxBufferedTags) {
        this.maxBufferedTags = maxBufferedTags;
        return this;
    }

    /** The step of tags created on first use, in [1, 1000000000]; 1000 by default. */
    public SegmentIdServiceBuilder defaultStep(int defaultStep) {
        this.defaultStep = defaultStep;
        return this;
    }

    /** How long after a failed background load the next background attempt waits, in [0, 60 s]; 1 s by default. */
    public SegmentIdServiceBuilder retryInterval(Duration retryInterval) {
        this.retryInterval = retryInterval;
        return this;
    }

    /** Threads that load segments in the background, in [1, 64]; 2 by default. Idle threads exit. */
    public SegmentIdServiceBuilder loaderThreads(int loaderThreads) {
        this.loaderThreads = loaderThreads;
        return this;
    }

    /**
     * The query timeout of every statement on the segment table, a whole number of seconds in [1 s, 10 min];
     * 5 s by default. A statement still running then (the row locked by another transaction, a database that
     * hangs) is cancelled and its transaction rolled back: a caller waiting for a segment gets a
     * {@link SegmentUnavailableException} instead of waiting as long as the driver would.
     */
    public SegmentIdServiceBuilder timeout(Duration timeout) {
        this.timeout = timeout;
        return this;
    }

    /**
     * Makes {@code bizTag} a dated tag ({@link DatedTag}): its numbers are the date of the call in {@code zone}
     * ({@code yyyyMMdd} for a day, {@code yyyyMM} for a month) followed by a counter of {@code width} digits that
     * starts at {@code start} each period, from a row per period ({@code orders:20261204}) that the service creates
     * on the period's first call. {@code width} is 1 to 10 for a day, 1 to 12 for a month (18 digits in all, which
     * a {@code long} always holds); {@code start} is 0 to 10^width - 1. Every node sharing the table must give a tag
     * the same settings.
     */
    public SegmentIdServiceBuilder datedTag(String bizTag, DatedTag.Period period, ZoneId zone, int width, long start) {
        this.datedTags.add(new DatedTag(bizTag, period, zone, width, start));
        return this;
    }

    /** The clock that dated tags take their period from, and that idle buffers are measured by; the system's by default. */
    public SegmentIdServiceBuilder timeSource(TimeSource timeSource) {
        this.timeSource = timeSource;
        return this;
    }

    /**
     * The prefix of every setting's name in errors, such as {@code "vesta.segment."}; none by default. Each
     * setting is named by its kebab-case name under it ({@code vesta.segment.max-step}).
     */
    public SegmentIdServiceBuilder settingPrefix(String settingPrefix) {
        this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
        return this;
    }

    /**
     * Checks every setting and returns the service. Nothing touches the database until the first number.
     * @throws InvalidSettingException naming the first bad setting under {@link #settingPrefix(String)}
     */
    public SegmentIdService build() {
        requireSet(settingPrefix + "data-source", dataSource, "a DataSource holding the segment table");
        requireSet(settingPrefix + "time-source", timeSource, "a TimeSource, such as TimeSource.system()");
        TableScript.checkTableName(settingPrefix + "table", table);
        if (!(refillThreshold >= 0.0 && refillThreshold < 1.0)) {
            throw new InvalidSettingException(settingPrefix + "refill-threshold", refillThreshold,
                    "a share of the segment at least 0.0 and below 1.0, such as 0.1");
        }
        requireInRange(settingPrefix + "target-duration", targetDuration, Duration.ofMillis(1), Duration.ofDays(1));
        requireInRange(settingPrefix + "max-step", maxStep, 1, STEP_LIMIT);
        requireInRange(settingPrefix + "default-step", defaultStep, 1, STEP_LIMIT);
        requireInRange(settingPrefix + "retry-interval", retryInterval, Duration.ZERO, Duration.ofMinutes(1));
        requireInRange(settingPrefix + "loader-threads", loaderThreads, 1, 64);
        checkTimeout(settingPrefix + "timeout", timeout);
        requireInRange(settingPrefix + "idle-timeout", idleTimeout, Duration.ofSeconds(1), Duration.ofDays(365));
        requireInRange(settingPrefix + "max-buffered-tags", maxBufferedTags, 1, MAX_BUFFERED_TAGS_LIMIT);
        if (autoCreateTags != null && !autoCreateTags.isEmpty()) {
            if (autoCreate) {
                throw new InvalidSettingException(settingPrefix + "auto-create-tags", autoCreateTags,
                        "unset while " + settingPrefix + "auto-create is true, which creates every tag",
                        "contradicts " + settingPrefix + "auto-create=true");
            }
            try {
                Pattern.compile(autoCreateTags);
            } catch (PatternSyntaxException e) {
                throw new InvalidSettingException(settingPrefix + "auto-create-tags", autoCreateTags,
                        "a Java regular expression matched against the whole tag, such as orders|invoices|tenant-[0-9]+",
                        "is not a regular expression: " + e.getDescription());
            }
        }
        checkDatedTags();
        return new SegmentIdService(this);
    }

    private void checkDatedTags() {
        Set<String> seen = new HashSet<>();
        for (DatedTag dated : datedTags) {
            String setting = settingPrefix + "dated-tags." + dated.bizTag();
            try {
                SegmentNumbers.requireValidBizTag("bizTag", dated.bizTag());
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException(settingPrefix + "dated-tags", dated.bizTag(),
                        "tags matching " + SegmentNumbers.BIZ_TAG_PATTERN, e.getMessage());
            }
            if (!seen.add(dated.bizTag())) {
                throw new InvalidSettingException(settingPrefix + "dated-tags", dated.bizTag(), "each tag once",
                        "names the tag twice");
            }
            requireSet(setting + ".period", dated.period(), "day or month");
            requireSet(setting + ".zone", dated.zone(), "a time-zone ID such as UTC or Europe/Paris");
            int maxTagLength = SegmentNumbers.MAX_BIZ_TAG_LENGTH - 1 - dated.period().digits();
            if (dated.bizTag().length() > maxTagLength) {
                throw new InvalidSettingException(settingPrefix + "dated-tags", dated.bizTag(),
                        "a tag of at most " + maxTagLength + " characters, so that its row (tag, ':' and the "
                                + dated.period().digits() + " digits of the date) fits in biz_tag's "
                                + SegmentNumbers.MAX_BIZ_TAG_LENGTH);
            }
            if (dated.width() < 1 || dated.width() > dated.period().maxWidth()) {
                throw new InvalidSettingException(setting + ".width", dated.width(), "a counter width in [1, "
                        + dated.period().maxWidth() + "] for period " + SettingNames.kebab(dated.period())
                        + " (the " + dated.period().digits() + " digits of " + dated.period().pattern()
                        + " and the counter fit " + DatedTag.MAX_DIGITS + " digits, which a long always holds)");
            }
            requireInRange(setting + ".start", dated.start(), 0, dated.maxCounter());
        }
    }

    private static void checkTimeout(String setting, Duration timeout) {
        String allowed = "a whole number of seconds in [" + MIN_TIMEOUT.toSeconds() + "s, " + MAX_TIMEOUT.toSeconds()
                + "s], such as 5s";
        if (timeout == null) {
            throw new InvalidSettingException(setting, null, allowed);
        }
        if (timeout.compareTo(MIN_TIMEOUT) < 0 || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new InvalidSettingException(setting, timeout.toMillis() + "ms", allowed);
        }
        if (timeout.toNanos() % 1_000_000_000L != 0) {
            // JDBC counts query timeouts in whole seconds: rounding would silently change what was asked for.
            throw new InvalidSettingException(setting, timeout.toMillis() + "ms", allowed,
                    "is not a whole number of seconds (JDBC counts query timeouts in seconds)");
        }
    }
}
