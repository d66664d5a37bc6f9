package io.vesta.client;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.InvalidSettingException;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdRange;
import io.vesta.time.TimeSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.vesta.IdService.MAX_BATCH;
import static io.vesta.client.RemoteIdService.DEFAULT_BATCH_LIFETIME;
import static io.vesta.client.RemoteIdService.DEFAULT_INITIAL_BACKOFF;
import static io.vesta.client.RemoteIdService.DEFAULT_MAX_BACKOFF;
import static io.vesta.client.RemoteIdService.DEFAULT_MAX_PREFETCH;
import static io.vesta.client.RemoteIdService.DEFAULT_PREFETCH;
import static io.vesta.client.RemoteIdService.DEFAULT_REFILL_THRESHOLD;
import static io.vesta.client.RemoteIdService.DEFAULT_TIMEOUT;
import static io.vesta.client.RemoteIdService.MAX_MAX_ID_AGE;
import static io.vesta.client.RemoteIdService.MIN_MAX_ID_AGE;
import static io.vesta.client.RemoteIdService.defaultMaxIdAge;

/**
 * Settings of a {@link RemoteIdService}, from {@link RemoteIdService#builder()}; every setting is checked in
 * {@link #build()}, and a bad one is refused with an {@link InvalidSettingException} that names it under the caller's
 * prefixes. Apart from the running client, as HikariCP keeps {@code HikariConfig}; the servers' URLs, the headers and
 * the token are each checked by a value type of their own ({@link ServerUrls}, {@link RequestHeaders},
 * {@link BearerToken}).
 */
public final class RemoteIdServiceBuilder {

    private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
    private static final Duration MIN_BATCH_LIFETIME = Duration.ofMillis(1);
    private static final Duration MAX_BATCH_LIFETIME = Duration.ofHours(1);
    private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
    private static final Duration MIN_BACKOFF = Duration.ofMillis(1);
    private static final Duration MAX_BACKOFF = Duration.ofHours(1);

    private String settingPrefix = "";
    private String layoutSettingPrefix = "";
    private final List<String> servers = new ArrayList<>();
    IdType type = EmbeddedIdService.DEFAULT_TYPE;
    Instant epoch = IdCodec.DEFAULT_EPOCH;
    long version = EmbeddedIdService.DEFAULT_VERSION;
    MachineIdRange serverRange = MachineIdRange.SERVER;
    int prefetch = DEFAULT_PREFETCH;
    int maxPrefetch = DEFAULT_MAX_PREFETCH;
    Duration batchLifetime = DEFAULT_BATCH_LIFETIME;
    private Duration maxIdAge;
    TimeSource timeSource = TimeSource.system();
    double refillThreshold = DEFAULT_REFILL_THRESHOLD;
    Duration timeout = DEFAULT_TIMEOUT;
    private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    IdService fallback;
    HttpClient httpClient;
    SSLContext sslContext;
    SSLParameters sslParameters;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private String token;

    RemoteIdServiceBuilder() {
    }

    /**
     * The prefix of the client's own settings in an {@link InvalidSettingException}, such as {@code vesta.client.}
     * for {@code vesta.client.timeout}; none by default.
     */
    public RemoteIdServiceBuilder settingPrefix(String settingPrefix) {
        this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
        return this;
    }

    /**
     * The prefix of the settings the client shares with the servers ({@code type}, {@code epoch}, {@code version},
     * {@code machine-id.server-range}) in an {@link InvalidSettingException}, such as {@code vesta.}; none by default.
     */
    public RemoteIdServiceBuilder layoutSettingPrefix(String layoutSettingPrefix) {
        this.layoutSettingPrefix = layoutSettingPrefix == null ? "" : layoutSettingPrefix;
        return this;
    }

    /** Base URLs of the central servers, such as {@code http://10.0.0.1:8080}; at least one. */
    public RemoteIdServiceBuilder servers(List<URI> servers) {
        this.servers.clear();
        servers.forEach(server -> this.servers.add(server == null ? null : server.toString()));
        return this;
    }

    /** Base URLs of the central servers as text, such as {@code http://10.0.0.1:8080}; at least one. */
    public RemoteIdServiceBuilder servers(String... servers) {
        this.servers.clear();
        this.servers.addAll(Arrays.asList(servers));
        return this;
    }

    /** The layout the servers issue, by default as an embedded generator's; IDs of another type are refused. */
    public RemoteIdServiceBuilder type(IdType type) {
        this.type = type;
        return this;
    }

    /** The servers' epoch, for {@link RemoteIdService#transTime}; a server with another epoch is refused. */
    public RemoteIdServiceBuilder epoch(Instant epoch) {
        this.epoch = epoch;
        return this;
    }

    /** The version bit {@code makeId} fills in. */
    public RemoteIdServiceBuilder version(long version) {
        this.version = version;
        return this;
    }

    /** The machine IDs servers may issue under; IDs with another machine ID are refused. */
    public RemoteIdServiceBuilder serverRange(MachineIdRange serverRange) {
        this.serverRange = serverRange;
        return this;
    }

    /**
     * The first batch: 1 to {@value IdService#MAX_BATCH}. After it the size adapts to use, from 1 (while calls are
     * rare) to {@link #maxPrefetch(int)}.
     */
    public RemoteIdServiceBuilder prefetch(int prefetch) {
        this.prefetch = prefetch;
        return this;
    }

    /** The largest batch the size grows to: from {@link #prefetch(int)} to {@value IdService#MAX_BATCH}. */
    public RemoteIdServiceBuilder maxPrefetch(int maxPrefetch) {
        this.maxPrefetch = maxPrefetch;
        return this;
    }

    /**
     * How long a batch should last, 1 ms to 1 h: a batch used up sooner doubles the next request, one that lasted
     * more than twice as long halves it.
     */
    public RemoteIdServiceBuilder batchLifetime(Duration batchLifetime) {
        this.batchLifetime = batchLifetime;
        return this;
    }

    /**
     * The oldest an ID may be handed out, counted from when the request that fetched it was sent, 1 ms to 1 h; by
     * default {@link RemoteIdService#defaultMaxIdAge} of the {@link #type}. Prefetched IDs that grow older are dropped unissued.
     */
    public RemoteIdServiceBuilder maxIdAge(Duration maxIdAge) {
        this.maxIdAge = maxIdAge;
        return this;
    }

    /**
     * The clock whose {@link TimeSource#nanoTime()} ages batches, times how long they last and times the servers'
     * backoff; the system clock by default. A seam for tests, which move time by hand.
     */
    public RemoteIdServiceBuilder timeSource(TimeSource timeSource) {
        this.timeSource = timeSource;
        return this;
    }

    Duration effectiveMaxIdAge() {
        return maxIdAge != null ? maxIdAge : defaultMaxIdAge(type);
    }

    /** The share of a batch used when the next is fetched: 0 at once, 1 only when the batch is used up. */
    public RemoteIdServiceBuilder refillThreshold(double refillThreshold) {
        this.refillThreshold = refillThreshold;
        return this;
    }

    /** The longest one request to one server may take, connection and body included. */
    public RemoteIdServiceBuilder timeout(Duration timeout) {
        this.timeout = timeout;
        return this;
    }

    /** How long a failed server is skipped after its first failure, and the most after repeated failures. */
    public RemoteIdServiceBuilder backoff(Duration initial, Duration max) {
        this.initialBackoff = initial;
        this.maxBackoff = max;
        return this;
    }

    /** A generator for the time when no server answers; closed with the client. Must issue genMethod 0 IDs. */
    public RemoteIdServiceBuilder fallback(IdService fallback) {
        this.fallback = fallback;
        return this;
    }

    /** The HTTP client to use (TLS settings, a proxy); by default an HTTP/1.1 client of its own. */
    public RemoteIdServiceBuilder httpClient(HttpClient httpClient) {
        this.httpClient = httpClient;
        return this;
    }

    /**
     * TLS for {@code https} servers: the trust (and, for mutual TLS, the key) material of the client's own HTTP
     * client, and optionally the protocols and ciphers to enable; by default the JDK's. Not together with
     * {@link #httpClient}, which brings its own TLS settings.
     */
    public RemoteIdServiceBuilder ssl(SSLContext sslContext, SSLParameters sslParameters) {
        this.sslContext = sslContext;
        this.sslParameters = sslParameters;
        return this;
    }

    /**
     * A header sent with every request, such as an {@code Authorization} token a gateway in front of the servers
     * asks for. The HTTP client's own headers ({@code Host}, {@code Connection}, {@code Content-Length},
     * {@code Expect}, {@code Upgrade}) and the protocol's {@code Accept} are refused by {@link #build()}.
     */
    public RemoteIdServiceBuilder header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    /**
     * The bearer token of servers that require one ({@code vesta.server.tokens}): sent as
     * {@code Authorization: Bearer token} with every request, and never shown in an error or a log line. Send it
     * over {@code https} ({@link #ssl}) outside a trusted network.
     */
    public RemoteIdServiceBuilder token(String token) {
        this.token = token;
        return this;
    }

    /** {@link #header} for each entry. */
    public RemoteIdServiceBuilder headers(Map<String, String> headers) {
        headers.forEach(this::header);
        return this;
    }

    /**
     * Checks every setting and starts fetching the first batch in the background.
     * @throws InvalidSettingException naming the first setting that cannot be used, its value and what is allowed
     */
    public RemoteIdService build() {
        InvalidSettingException.requireSet(layoutSettingPrefix + "type", type, "max-peak or min-granularity");
        InvalidSettingException.requireSet(layoutSettingPrefix + "epoch", epoch, "an instant, such as 2015-01-01T00:00:00+08:00");
        Instant now = Instant.now();
        if (epoch.isAfter(now)) {
            // The servers' epoch is in their past: a client whose epoch is not could never accept a batch.
            throw new InvalidSettingException(layoutSettingPrefix + "epoch", epoch, "the servers' epoch, an instant not"
                    + " after now (" + now + ")", "is in the future");
        }
        InvalidSettingException.requireSet(layoutSettingPrefix + "machine-id.server-range", serverRange,
                "the range of machine IDs the servers issue under");
        InvalidSettingException.requireInRange(layoutSettingPrefix + "version", version, 0, IdLayout.MAX_VERSION);
        ServerUrls urls = ServerUrls.parse(settingPrefix + "servers", servers);
        InvalidSettingException.requireInRange(settingPrefix + "prefetch", prefetch, 1, MAX_BATCH);
        if (maxPrefetch < prefetch || maxPrefetch > MAX_BATCH) {
            throw new InvalidSettingException(settingPrefix + "max-prefetch", (long) maxPrefetch, "a value in [" + prefetch + ", "
                    + MAX_BATCH + "]: not below " + settingPrefix + "prefetch (" + prefetch + ")");
        }
        InvalidSettingException.requireInRange(settingPrefix + "batch-lifetime", batchLifetime, MIN_BATCH_LIFETIME,
                MAX_BATCH_LIFETIME);
        if (maxIdAge != null) {
            InvalidSettingException.requireInRange(settingPrefix + "max-id-age", maxIdAge, MIN_MAX_ID_AGE, MAX_MAX_ID_AGE);
        }
        InvalidSettingException.requireSet(settingPrefix + "time-source", timeSource, "a TimeSource");
        if (!(refillThreshold >= 0 && refillThreshold <= 1)) {
            throw new InvalidSettingException(settingPrefix + "refill-threshold", refillThreshold, "a share in [0, 1]");
        }
        InvalidSettingException.requireInRange(settingPrefix + "timeout", timeout, MIN_TIMEOUT, MAX_TIMEOUT);
        InvalidSettingException.requireInRange(settingPrefix + "backoff.initial", initialBackoff, MIN_BACKOFF, MAX_BACKOFF);
        InvalidSettingException.requireInRange(settingPrefix + "backoff.max", maxBackoff, initialBackoff, MAX_BACKOFF);
        checkFallback();
        RequestHeaders requestHeaders = RequestHeaders.check(settingPrefix, headers);
        BearerToken bearerToken = BearerToken.check(settingPrefix, token, headers);
        if (httpClient != null && sslContext != null) {
            throw new InvalidSettingException(settingPrefix + "ssl", "an SSLContext",
                    "no SSL settings when an HttpClient of your own is given: configure TLS on that client",
                    "cannot be combined with an HttpClient of your own");
        }
        long initialNanos = initialBackoff.toNanos();
        long maxNanos = maxBackoff.toNanos();
        return new RemoteIdService(this, urls.uris().stream().map(uri -> new IdServer(uri, initialNanos, maxNanos)).toList(),
                requestHeaders.with(bearerToken));
    }

    /** A fallback with a server's genMethod could repeat a server's IDs; one of another type breaks ordering. */
    private void checkFallback() {
        if (fallback instanceof EmbeddedIdService embedded) {
            String allowed = "a generator of genMethod 0 (embedded) and type " + type;
            if (embedded.genMethod() != GenMethod.EMBEDDED) {
                throw new InvalidSettingException(settingPrefix + "fallback", "a generator of genMethod " + embedded.genMethod(),
                        allowed, "cannot be the fallback: a fallback with a server's genMethod could repeat a server's IDs");
            }
            if (embedded.type() != type) {
                throw new InvalidSettingException(settingPrefix + "fallback", "a generator of type " + embedded.type(),
                        allowed, "cannot be the fallback of a client of type " + type);
            }
        }
    }
}
