package io.vesta.client;

import io.vesta.DecodedId;
import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.InvalidSettingException;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdRange;
import io.vesta.protocol.BatchProtocol;
import io.vesta.time.TimeSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;

/**
 * An {@link IdService} whose IDs come from central servers ({@link BatchProtocol}), genMethod 1.
 *
 * <p><b>Prefetch.</b> IDs arrive in batches. As in Leaf's double buffer, the next batch is fetched in the background
 * while the current one is still in use: once {@code refillThreshold} of it is used (by default 0.1, a tenth, as in
 * Leaf), one background thread asks for the next. {@link #genId()} is then an index increment on an array; it waits
 * only when both batches are used up before a server has answered. The batch size follows use, as Leaf's segment
 * step does: it starts at {@code prefetch}; a batch used up within {@code batchLifetime} (1 s, but at most an eighth
 * of {@code maxIdAge}), or before the next one arrived, doubles the next request up to {@code maxPrefetch} (100,000),
 * and one that lasted more than twice as long halves it, down to 1. A busy client so keeps its server's generator busy with no tuning, and a
 * quiet one keeps few IDs in memory (and loses few when it stops). While callers wait, the next request goes out as
 * soon as the server has answered the current one with its headers (it has reserved the whole batch by then), so
 * the server reserves the next batch while the current one travels; batches are used in the order they were asked
 * for.
 *
 * <p><b>Age.</b> No ID is handed out more than {@code maxIdAge} after the request that fetched it was sent (by
 * default {@value #DEFAULT_MAX_ID_AGE_MAX_PEAK_MILLIS} ms for MAX_PEAK, {@value #DEFAULT_MAX_ID_AGE_MIN_GRANULARITY_MILLIS}
 * ms for MIN_GRANULARITY). The server issues a batch's IDs after the request reaches it, so this bounds how long
 * after its issue an ID is handed out, measured on this client's monotonic clock alone: no server's wall clock is
 * trusted, and a clock step on either side changes nothing. Each call checks the age of the batch it takes from;
 * IDs of a batch grown older are dropped unissued ({@link #expiredIds()}: gaps, never repeats). The batch lifetime
 * the size adapts to is at most an eighth of the bound, and a batch whose last IDs came close to the bound does not
 * grow the next, so batches are used up before they grow old; a client whose calls are an eighth of the bound apart
 * or more fetches nothing ahead, and each batch, fetched when a call needs it, holds what fits in four fifths of the
 * bound at that pace: one ID per call when the calls are further apart than that.
 * An ID's decoded time can still lag this client's wall clock by the bound, plus one time unit (the field is
 * truncated to whole seconds or milliseconds), plus however far the server's clock is behind this one's.
 *
 * <p><b>Failover.</b> Each fetch is a round over the servers, starting one further along the list than the
 * previous round so that load spreads and a restarted server is back in the rotation at once. A server that
 * fails, times out ({@code timeout} bounds the whole exchange, body included) or sends an invalid batch is
 * skipped with exponential backoff ({@code initialBackoff} doubling up to {@code maxBackoff}) and the round
 * moves to the next server. Only when a round gets nothing from any server does {@link #genId()} fail, with a
 * {@link ServersUnavailableException} that lists every server and its error; while every server is backing off
 * it fails at once with the same list, and a background retry runs when the first backoff ends.
 *
 * <p><b>Fallback.</b> With a fallback {@link IdService} (an embedded generator with a machine ID of the embedded
 * range, genMethod 0) a call that would fail issues a local ID instead, and the background retries go on; the
 * first batch a server delivers ends the fallback.
 *
 * <p><b>Checks.</b> Every ID of every batch is checked before it is handed out: genMethod 1, this client's type,
 * a machine ID in the server range, strictly increasing; and the server's epoch must equal this client's.
 *
 * <p>{@link #expId}, {@link #transTime} and {@link #makeId} are local: the layout is known. IDs of batches
 * still in memory at {@link #close()} are never issued; like every unused ID they are a gap, never a repeat.
 *
 * <p>The parts: {@link PrefetchBuffer} (the IDs in memory and the background refill), {@link ServerRotation}
 * (failover order and backoff, one loop for the background refill and a caller's own fetch), {@link HttpTransport}
 * (the exchange and its timeout) and {@link BatchValidator} (the checks on an answered batch).
 */
public final class RemoteIdService implements IdService, AutoCloseable {

    /** The first and smallest batch unless {@link Builder#prefetch} says otherwise. */
    public static final int DEFAULT_PREFETCH = 1000;
    /** The largest batch unless {@link Builder#maxPrefetch} says otherwise: the most one request may ask for. */
    public static final int DEFAULT_MAX_PREFETCH = MAX_BATCH;
    /** The oldest a MAX_PEAK ID is handed out, unless {@link Builder#maxIdAge} says otherwise: one time unit. */
    public static final long DEFAULT_MAX_ID_AGE_MAX_PEAK_MILLIS = 1000;
    /**
     * The oldest a MIN_GRANULARITY ID is handed out, unless {@link Builder#maxIdAge} says otherwise: a batch of the
     * largest size spans about 100 ms of one server's milliseconds, so a tighter bound costs a busy client throughput.
     */
    public static final long DEFAULT_MAX_ID_AGE_MIN_GRANULARITY_MILLIS = 100;
    /** The smallest {@link Builder#maxIdAge}. */
    public static final Duration MIN_MAX_ID_AGE = Duration.ofMillis(1);
    /** The largest {@link Builder#maxIdAge}. */
    public static final Duration MAX_MAX_ID_AGE = Duration.ofHours(1);
    /** How long a batch should last unless {@link Builder#batchLifetime} says otherwise. */
    public static final Duration DEFAULT_BATCH_LIFETIME = Duration.ofSeconds(1);
    /** The share of a batch used when the next is fetched, unless {@link Builder#refillThreshold} says otherwise. */
    public static final double DEFAULT_REFILL_THRESHOLD = 0.1;
    /** The longest one request to one server may take, unless {@link Builder#timeout} says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** How long a failed server is first skipped, unless {@link Builder#backoff} says otherwise. */
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    /** The longest a failing server is skipped at a time, unless {@link Builder#backoff} says otherwise. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);

    private final IdType type;
    private final long version;
    private final IdCodec codec;
    private final MachineIdRange serverRange;
    private final int prefetch;
    private final int maxPrefetch;
    private final Duration batchLifetime;
    private final Duration maxIdAge;
    private final double refillThreshold;
    private final Duration timeout;
    private final IdService fallback;
    private final HttpTransport transport;
    private final BatchValidator validator;
    private final ServerRotation rotation;
    private final PrefetchBuffer buffer;

    private final LongAdder fallbackIds = new LongAdder();

    private RemoteIdService(Builder builder, List<IdServer> servers) {
        this.type = builder.type;
        this.version = builder.version;
        this.codec = new IdCodec(builder.epoch);
        this.serverRange = builder.serverRange;
        this.prefetch = builder.prefetch;
        this.maxPrefetch = builder.maxPrefetch;
        this.batchLifetime = builder.batchLifetime;
        this.maxIdAge = builder.effectiveMaxIdAge();
        this.refillThreshold = builder.refillThreshold;
        this.timeout = builder.timeout;
        this.fallback = builder.fallback;
        Map<String, String> headers = new LinkedHashMap<>(builder.headers);
        if (builder.token != null) {
            headers.put("Authorization", "Bearer " + builder.token);
        }
        this.transport = new HttpTransport(builder.httpClient, builder.sslContext, builder.sslParameters,
                Map.copyOf(headers), timeout);
        this.validator = new BatchValidator(type, codec, serverRange);
        this.rotation = new ServerRotation(servers, transport::describe);
        // The size goes below prefetch when calls are rare: a large batch would only grow old.
        TimeSource timeSource = builder.timeSource;
        this.buffer = new PrefetchBuffer(new BatchSizer(1, prefetch, maxPrefetch, batchLifetime, maxIdAge), refillThreshold,
                rotation, (server, count, onReserved) -> fetch(server, count, true, onReserved), timeout,
                fallback == null ? null : this::fallbackId, timeSource::nanoTime, this::issueSpanNanos);
    }

    /** A builder with every setting at its default; the servers must be set. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public long genId() {
        return buffer.nextId();
    }

    /**
     * A slice of the current batch when it has {@code count} IDs left, else a batch of its own fetched now, so
     * the IDs always come from one server's one reservation and are strictly increasing.
     */
    @Override
    public long[] genIds(int count) {
        if (count < 1 || count > MAX_BATCH) {
            throw new IllegalArgumentException("count must be in [1, " + MAX_BATCH + "], was " + count);
        }
        long[] slice = buffer.take(count);
        return slice != null ? slice : fetchNow(count);
    }

    @Override
    public Id expId(long id) {
        return codec.expId(id);
    }

    @Override
    public Instant transTime(long time) {
        return codec.transTime(type, time);
    }

    /** Decoded with this service's codec, so the instant is read in the ID's own type. */
    @Override
    public DecodedId decode(long id) {
        return DecodedId.of(id, codec);
    }

    /**
     * Not available: a client has no machine ID of its own (its IDs carry their server's).
     * @throws UnsupportedOperationException always; use {@link #makeId(long, long, long)}
     */
    @Override
    public long makeId(long time, long seq) {
        throw new UnsupportedOperationException("machine: a Vesta client has no machine ID of its own (its IDs carry"
                + " the machine ID of the server that issued them); use makeId(time, seq, machine)");
    }

    /** An ID of genMethod 1 (central server), this client's type and version. */
    @Override
    public long makeId(long time, long seq, long machine) {
        return makeId(version, type.code(), GenMethod.CENTRAL_SERVER.code(), time, seq, machine);
    }

    @Override
    public long makeId(long genMethod, long time, long seq, long machine) {
        return makeId(version, type.code(), genMethod, time, seq, machine);
    }

    @Override
    public long makeId(long type, long genMethod, long time, long seq, long machine) {
        return makeId(version, type, genMethod, time, seq, machine);
    }

    @Override
    public long makeId(long version, long type, long genMethod, long time, long seq, long machine) {
        return codec.makeId(version, type, genMethod, time, seq, machine);
    }

    /** The layout the servers issue. */
    public IdType type() {
        return type;
    }

    /** The servers' epoch. */
    public Instant epoch() {
        return codec.epoch();
    }

    /** The version bit {@code makeId} fills in. */
    public long version() {
        return version;
    }

    /** The servers' base URLs, in configured order. */
    public List<URI> servers() {
        return rotation.bases();
    }

    /** The first batch. */
    public int prefetch() {
        return prefetch;
    }

    /** The largest batch. */
    public int maxPrefetch() {
        return maxPrefetch;
    }

    /** How long a batch should last: the target the batch size adapts to. */
    public Duration batchLifetime() {
        return batchLifetime;
    }

    /**
     * The oldest an ID is handed out, counted from when the request that fetched it was sent: older prefetched IDs
     * are dropped ({@link #expiredIds()}).
     */
    public Duration maxIdAge() {
        return maxIdAge;
    }

    /** The default {@link #maxIdAge()} of a type: a second for MAX_PEAK, 100 ms for MIN_GRANULARITY. */
    public static Duration defaultMaxIdAge(IdType type) {
        return Duration.ofMillis(type == IdType.MIN_GRANULARITY ? DEFAULT_MAX_ID_AGE_MIN_GRANULARITY_MILLIS
                : DEFAULT_MAX_ID_AGE_MAX_PEAK_MILLIS);
    }

    /** How many IDs the next fetch asks for, between 1 and {@link #maxPrefetch()}. */
    public int batchSize() {
        return buffer.batchSize();
    }

    /** The share of a batch used when the next is fetched. */
    public double refillThreshold() {
        return refillThreshold;
    }

    /** The longest one request to one server may take. */
    public Duration timeout() {
        return timeout;
    }

    /** The machine IDs servers may issue under. */
    public MachineIdRange serverRange() {
        return serverRange;
    }

    /** The local generator used while no server answers, if there is one. */
    public Optional<IdService> fallback() {
        return Optional.ofNullable(fallback);
    }

    /** How many batches servers have delivered (prefetched ones; not the direct fetches of large {@link #genIds}). */
    public long batchesFetched() {
        return buffer.batchesFetched();
    }

    /** How many prefetched IDs were dropped unissued because they grew older than {@link #maxIdAge()}. */
    public long expiredIds() {
        return buffer.expiredIds();
    }

    /** Whether the next batch is fetched while the current one is in use; false while calls are rarer than that pays for. */
    public boolean fetchesAhead() {
        return buffer.fetchesAhead();
    }

    /** How many IDs came from the fallback because no server answered. */
    public long fallbackIds() {
        return fallbackIds.sum();
    }

    /**
     * How many times each server failed, timed out or sent an invalid batch since this client started, by base URL in
     * configured order; a server skipped while backing off is not counted again.
     */
    public Map<URI, Long> serverFailures() {
        return rotation.failuresByServer();
    }

    /** How many fetches got their IDs from a server after another one failed or was skipped as backing off. */
    public long failovers() {
        return rotation.failovers();
    }

    /** IDs in memory and not yet handed out: the rest of the batch in use and the next batch, if it has arrived. */
    public long bufferedIds() {
        return buffer.bufferedIds();
    }

    /**
     * Why the last background fetch got no batch: each server and its error, in the order tried. Empty when it got
     * one, or while the first is under way; while it is not empty, {@link #genId()} takes from the fallback, or,
     * once the IDs in memory are used up, fails without one.
     */
    public List<ServersUnavailableException.ServerFailure> lastRoundFailures() {
        return buffer.lastRoundFailures();
    }

    /** Stops background fetching and closes the fallback. IDs still buffered are dropped: gaps, never repeats. */
    @Override
    public void close() {
        // The buffer first: callers then learn that the client is closed, and a round under way asks no further
        // server, even if the interrupt that ends its exchange coincides with the transport's timeout alarm.
        buffer.close();
        transport.close();
        if (fallback instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("Cannot close the fallback " + fallback, e);
            }
        }
    }

    @Override
    public String toString() {
        return "RemoteIdService[" + type + ", servers " + rotation + ", prefetch " + prefetch + "-" + maxPrefetch + ", max ID age "
                + maxIdAge.toMillis() + " ms, timeout " + timeout.toMillis() + " ms" + (fallback != null ? ", fallback " + fallback : "") + "]";
    }

    /** How long the server took to issue {@code ids}, at least: their times' span less one unit, never below 0. */
    private long issueSpanNanos(long[] ids) {
        if (ids.length < 2) {
            return 0;
        }
        long units = codec.expId(ids[ids.length - 1]).time() - codec.expId(ids[0]).time() - 1;
        return Math.max(0, units) * IdLayout.of(type).unitMillis() * 1_000_000;
    }

    private long fallbackId() {
        fallbackIds.increment();
        return fallback.genId();
    }

    /** A batch fetched on the caller's thread, for {@link #genIds} calls the prefetched batch cannot serve. */
    private long[] fetchNow(int count) {
        ServerRotation.Round round = rotation.run(server -> fetch(server, count, false, null));
        if (round.ids() != null) {
            return round.ids();
        }
        if (fallback != null) {
            fallbackIds.add(count);
            return fallback.genIds(count);
        }
        throw new ServersUnavailableException(round.failures());
    }

    private long[] fetch(IdServer server, int count, boolean onRefillThread, Runnable onReserved)
            throws IOException, InterruptedException {
        HttpResponse<byte[]> response = transport.get(server.batchUri(count), onRefillThread, onReserved);
        return validator.validate(server.base(), count, response.headers().firstValue(BatchProtocol.EPOCH_HEADER).orElse(null),
                response.body());
    }

    /**
     * Settings of a {@link RemoteIdService}; every setting is checked in {@link #build()}, and a bad one is refused
     * with an {@link InvalidSettingException} that names it under the caller's prefixes.
     */
    public static final class Builder {

        private static final String SERVERS_ALLOWED = "a comma-separated list of the base URLs of the central servers,"
                + " such as http://10.0.0.1:8080,http://10.0.0.2:8080";
        private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);
        private static final Duration MIN_BATCH_LIFETIME = Duration.ofMillis(1);
        private static final Duration MAX_BATCH_LIFETIME = Duration.ofHours(1);
        private static final Duration MAX_TIMEOUT = Duration.ofMinutes(10);
        private static final Duration MIN_BACKOFF = Duration.ofMillis(1);
        private static final Duration MAX_BACKOFF = Duration.ofHours(1);
        private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
        /** Headers the JDK's client sets itself and refuses to take, and the Accept of the batch protocol. */
        private static final List<String> RESERVED_HEADERS = List.of("accept", "connection", "content-length", "expect",
                "host", "upgrade");

        private String settingPrefix = "";
        private String layoutSettingPrefix = "";
        private final List<String> servers = new ArrayList<>();
        private IdType type = EmbeddedIdService.DEFAULT_TYPE;
        private Instant epoch = IdCodec.DEFAULT_EPOCH;
        private long version = EmbeddedIdService.DEFAULT_VERSION;
        private MachineIdRange serverRange = MachineIdRange.SERVER;
        private int prefetch = DEFAULT_PREFETCH;
        private int maxPrefetch = DEFAULT_MAX_PREFETCH;
        private Duration batchLifetime = DEFAULT_BATCH_LIFETIME;
        private Duration maxIdAge;
        private TimeSource timeSource = TimeSource.system();
        private double refillThreshold = DEFAULT_REFILL_THRESHOLD;
        private Duration timeout = DEFAULT_TIMEOUT;
        private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private IdService fallback;
        private HttpClient httpClient;
        private SSLContext sslContext;
        private SSLParameters sslParameters;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private String token;

        private Builder() {
        }

        /**
         * The prefix of the client's own settings in an {@link InvalidSettingException}, such as {@code vesta.client.}
         * for {@code vesta.client.timeout}; none by default.
         */
        public Builder settingPrefix(String settingPrefix) {
            this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
            return this;
        }

        /**
         * The prefix of the settings the client shares with the servers ({@code type}, {@code epoch}, {@code version},
         * {@code machine-id.server-range}) in an {@link InvalidSettingException}, such as {@code vesta.}; none by default.
         */
        public Builder layoutSettingPrefix(String layoutSettingPrefix) {
            this.layoutSettingPrefix = layoutSettingPrefix == null ? "" : layoutSettingPrefix;
            return this;
        }

        /** Base URLs of the central servers, such as {@code http://10.0.0.1:8080}; at least one. */
        public Builder servers(List<URI> servers) {
            this.servers.clear();
            servers.forEach(server -> this.servers.add(server == null ? null : server.toString()));
            return this;
        }

        /** Base URLs of the central servers as text, such as {@code http://10.0.0.1:8080}; at least one. */
        public Builder servers(String... servers) {
            this.servers.clear();
            this.servers.addAll(Arrays.asList(servers));
            return this;
        }

        /** The layout the servers issue, by default as an embedded generator's; IDs of another type are refused. */
        public Builder type(IdType type) {
            this.type = type;
            return this;
        }

        /** The servers' epoch, for {@link #transTime}; a server with another epoch is refused. */
        public Builder epoch(Instant epoch) {
            this.epoch = epoch;
            return this;
        }

        /** The version bit {@code makeId} fills in. */
        public Builder version(long version) {
            this.version = version;
            return this;
        }

        /** The machine IDs servers may issue under; IDs with another machine ID are refused. */
        public Builder serverRange(MachineIdRange serverRange) {
            this.serverRange = serverRange;
            return this;
        }

        /**
         * The first batch: 1 to {@value IdService#MAX_BATCH}. After it the size adapts to use, from 1 (while calls are
         * rare) to {@link #maxPrefetch(int)}.
         */
        public Builder prefetch(int prefetch) {
            this.prefetch = prefetch;
            return this;
        }

        /** The largest batch the size grows to: from {@link #prefetch(int)} to {@value IdService#MAX_BATCH}. */
        public Builder maxPrefetch(int maxPrefetch) {
            this.maxPrefetch = maxPrefetch;
            return this;
        }

        /**
         * How long a batch should last, 1 ms to 1 h: a batch used up sooner doubles the next request, one that lasted
         * more than twice as long halves it.
         */
        public Builder batchLifetime(Duration batchLifetime) {
            this.batchLifetime = batchLifetime;
            return this;
        }

        /**
         * The oldest an ID may be handed out, counted from when the request that fetched it was sent, 1 ms to 1 h; by
         * default {@link #defaultMaxIdAge} of the {@link #type}. Prefetched IDs that grow older are dropped unissued.
         */
        public Builder maxIdAge(Duration maxIdAge) {
            this.maxIdAge = maxIdAge;
            return this;
        }

        /**
         * The clock whose {@link TimeSource#nanoTime()} ages batches and times how long they last; the system clock by
         * default. A seam for tests, which move time by hand.
         */
        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = timeSource;
            return this;
        }

        private Duration effectiveMaxIdAge() {
            return maxIdAge != null ? maxIdAge : defaultMaxIdAge(type);
        }

        /** The share of a batch used when the next is fetched: 0 at once, 1 only when the batch is used up. */
        public Builder refillThreshold(double refillThreshold) {
            this.refillThreshold = refillThreshold;
            return this;
        }

        /** The longest one request to one server may take, connection and body included. */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** How long a failed server is skipped after its first failure, and the most after repeated failures. */
        public Builder backoff(Duration initial, Duration max) {
            this.initialBackoff = initial;
            this.maxBackoff = max;
            return this;
        }

        /** A generator for the time when no server answers; closed with the client. Must issue genMethod 0 IDs. */
        public Builder fallback(IdService fallback) {
            this.fallback = fallback;
            return this;
        }

        /** The HTTP client to use (TLS settings, a proxy); by default an HTTP/1.1 client of its own. */
        public Builder httpClient(HttpClient httpClient) {
            this.httpClient = httpClient;
            return this;
        }

        /**
         * TLS for {@code https} servers: the trust (and, for mutual TLS, the key) material of the client's own HTTP
         * client, and optionally the protocols and ciphers to enable; by default the JDK's. Not together with
         * {@link #httpClient}, which brings its own TLS settings.
         */
        public Builder ssl(SSLContext sslContext, SSLParameters sslParameters) {
            this.sslContext = sslContext;
            this.sslParameters = sslParameters;
            return this;
        }

        /**
         * A header sent with every request, such as an {@code Authorization} token a gateway in front of the servers
         * asks for. The HTTP client's own headers ({@code Host}, {@code Connection}, {@code Content-Length},
         * {@code Expect}, {@code Upgrade}) and the protocol's {@code Accept} are refused by {@link #build()}.
         */
        public Builder header(String name, String value) {
            headers.put(name, value);
            return this;
        }

        /**
         * The bearer token of servers that require one ({@code vesta.server.tokens}): sent as
         * {@code Authorization: Bearer token} with every request, and never shown in an error or a log line. Send it
         * over {@code https} ({@link #ssl}) outside a trusted network.
         */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** {@link #header} for each entry. */
        public Builder headers(Map<String, String> headers) {
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
            List<URI> uris = serverUris();
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
            checkHeaders();
            checkToken();
            if (httpClient != null && sslContext != null) {
                throw new InvalidSettingException(settingPrefix + "ssl", "an SSLContext",
                        "no SSL settings when an HttpClient of your own is given: configure TLS on that client",
                        "cannot be combined with an HttpClient of your own");
            }
            long initialNanos = initialBackoff.toNanos();
            long maxNanos = maxBackoff.toNanos();
            return new RemoteIdService(this, uris.stream().map(uri -> new IdServer(uri, initialNanos, maxNanos)).toList());
        }

        /** The servers as base URLs, each an http or https URL with a host and no query, each listed once. */
        private List<URI> serverUris() {
            String setting = settingPrefix + "servers";
            if (servers.isEmpty()) {
                throw new InvalidSettingException(setting, null, SERVERS_ALLOWED);
            }
            String value = String.join(",", servers.stream().map(String::valueOf).toList());
            List<URI> uris = new ArrayList<>();
            Set<URI> seen = new HashSet<>();
            for (String server : servers) {
                String text = server == null ? "" : server.trim();
                URI uri;
                try {
                    uri = URI.create(text);
                } catch (IllegalArgumentException e) {
                    throw new InvalidSettingException(setting, value, SERVERS_ALLOWED, "has an entry that is not a URL: '"
                            + text + "' (" + e.getMessage() + ")");
                }
                String scheme = uri.getScheme();
                if (!("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme)) || uri.getHost() == null
                        || uri.getRawQuery() != null || uri.getRawFragment() != null) {
                    throw new InvalidSettingException(setting, value, SERVERS_ALLOWED,
                            "has an entry that is not an http or https base URL with a host and no query: '" + text + "'");
                }
                if (!seen.add(uri)) {
                    throw new InvalidSettingException(setting, value, SERVERS_ALLOWED + ", each listed once",
                            "lists " + text + " twice");
                }
                uris.add(uri);
            }
            return uris;
        }

        /** A fallback with a server's genMethod could repeat a server's IDs; one of another type breaks ordering. */
        private void checkHeaders() {
            for (Map.Entry<String, String> header : headers.entrySet()) {
                String name = header.getKey();
                String setting = settingPrefix + "headers." + name;
                if (name == null || !HEADER_NAME.matcher(name).matches()) {
                    throw new InvalidSettingException(settingPrefix + "headers", name,
                            "header names of letters, digits and !#$%&'*+-.^_`|~", "is not a header name");
                }
                if (RESERVED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                    throw new InvalidSettingException(setting, header.getValue(),
                            "a header other than " + String.join(", ", RESERVED_HEADERS),
                            "is a header the client sets itself");
                }
                String value = header.getValue();
                if (value == null || value.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
                    throw new InvalidSettingException(setting, value, "a header value on one line",
                            value == null ? "is required" : "has a line break");
                }
            }
        }

        private void checkToken() {
            if (token == null) {
                return;
            }
            if (token.isEmpty() || token.length() > 1024 || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new InvalidSettingException(settingPrefix + "token", "(not shown)",
                        "1 to 1024 visible ASCII characters without spaces: one of the servers' vesta.server.tokens",
                        "is not a usable token: it has " + token.length() + " characters");
            }
            if (headers.keySet().stream().anyMatch(name -> name.equalsIgnoreCase("Authorization"))) {
                throw new InvalidSettingException(settingPrefix + "headers.Authorization", "(not shown)",
                        "no Authorization header together with " + settingPrefix + "token, which sends one",
                        "would be sent twice");
            }
        }

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
}
