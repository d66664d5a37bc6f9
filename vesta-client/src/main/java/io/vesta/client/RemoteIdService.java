package io.vesta.client;

import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.LayoutIdService;
import io.vesta.layout.IdCodec;
import io.vesta.machine.MachineIdRange;
import io.vesta.protocol.BatchProtocol;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

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
 * <p>The parts, in the order {@link #genId()} reaches them: {@link PrefetchBuffer} (the IDs in memory),
 * {@link RefillRounds} (the background refill, in rounds), {@link ServerRotation} (failover order and backoff, one
 * loop for the background refill and a caller's own fetch), {@link BatchFetcher} (one batch from one server: {@link HttpTransport}, the exchange and its
 * timeout, then {@link BatchValidator}, the checks on an answered batch). The settings are a
 * {@link RemoteIdServiceBuilder}'s.
 */
public final class RemoteIdService extends LayoutIdService implements AutoCloseable {

    /** The first and smallest batch unless {@link RemoteIdServiceBuilder#prefetch} says otherwise. */
    public static final int DEFAULT_PREFETCH = 1000;
    /** The largest batch unless {@link RemoteIdServiceBuilder#maxPrefetch} says otherwise: the most one request may ask for. */
    public static final int DEFAULT_MAX_PREFETCH = MAX_BATCH;
    /** The oldest a MAX_PEAK ID is handed out, unless {@link RemoteIdServiceBuilder#maxIdAge} says otherwise: one time unit. */
    public static final long DEFAULT_MAX_ID_AGE_MAX_PEAK_MILLIS = 1000;
    /**
     * The oldest a MIN_GRANULARITY ID is handed out, unless {@link RemoteIdServiceBuilder#maxIdAge} says otherwise: a batch of the
     * largest size spans about 100 ms of one server's milliseconds, so a tighter bound costs a busy client throughput.
     */
    public static final long DEFAULT_MAX_ID_AGE_MIN_GRANULARITY_MILLIS = 100;
    /** The smallest {@link RemoteIdServiceBuilder#maxIdAge}. */
    public static final Duration MIN_MAX_ID_AGE = Duration.ofMillis(1);
    /** The largest {@link RemoteIdServiceBuilder#maxIdAge}. */
    public static final Duration MAX_MAX_ID_AGE = Duration.ofHours(1);
    /** How long a batch should last unless {@link RemoteIdServiceBuilder#batchLifetime} says otherwise. */
    public static final Duration DEFAULT_BATCH_LIFETIME = Duration.ofSeconds(1);
    /** The share of a batch used when the next is fetched, unless {@link RemoteIdServiceBuilder#refillThreshold} says otherwise. */
    public static final double DEFAULT_REFILL_THRESHOLD = 0.1;
    /** The longest one request to one server may take, unless {@link RemoteIdServiceBuilder#timeout} says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    /** How long a failed server is first skipped, unless {@link RemoteIdServiceBuilder#backoff} says otherwise. */
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    /** The longest a failing server is skipped at a time, unless {@link RemoteIdServiceBuilder#backoff} says otherwise. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);

    private final IdType type;
    private final long version;
    private final MachineIdRange serverRange;
    private final int prefetch;
    private final int maxPrefetch;
    private final Duration batchLifetime;
    private final Duration maxIdAge;
    private final double refillThreshold;
    private final Duration timeout;
    private final IdService fallback;
    private final BatchFetcher fetcher;
    private final ServerRotation rotation;
    private final PrefetchBuffer buffer;

    private final LongAdder fallbackIds = new LongAdder();

    /**
     * Wires the parts; the settings are checked already.
     * @param servers the servers, in configured order
     * @param headers every request's extra headers, the token's {@code Authorization} among them
     */
    RemoteIdService(RemoteIdServiceBuilder settings, List<IdServer> servers, Map<String, String> headers) {
        super(settings.version, settings.type, GenMethod.CENTRAL_SERVER, new IdCodec(settings.epoch));
        this.type = settings.type;
        this.version = settings.version;
        this.serverRange = settings.serverRange;
        this.prefetch = settings.prefetch;
        this.maxPrefetch = settings.maxPrefetch;
        this.batchLifetime = settings.batchLifetime;
        this.maxIdAge = settings.effectiveMaxIdAge();
        this.refillThreshold = settings.refillThreshold;
        this.timeout = settings.timeout;
        this.fallback = settings.fallback;
        this.fetcher = new BatchFetcher(new HttpTransport(settings.httpClient, settings.sslContext, settings.sslParameters,
                headers, timeout), new BatchValidator(type, codec(), serverRange), codec(), type);
        // One clock ages batches and times the servers' backoff, so that a test that moves it moves both.
        LongSupplier ticker = settings.timeSource::nanoTime;
        this.rotation = new ServerRotation(servers, fetcher::describe, ticker);
        // The size goes below prefetch when calls are rare: a large batch would only grow old.
        this.buffer = new PrefetchBuffer(new BatchSizer(1, prefetch, maxPrefetch, batchLifetime, maxIdAge), refillThreshold,
                rotation, fetcher, timeout, fallback == null ? null : this::fallbackId, ticker);
    }

    /** A builder with every setting at its default; the servers must be set. */
    public static RemoteIdServiceBuilder builder() {
        return new RemoteIdServiceBuilder();
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

    /**
     * Not available: a client has no machine ID of its own (its IDs carry their server's).
     * @throws UnsupportedOperationException always; use {@link #makeId(long, long, long)}
     */
    @Override
    public long makeId(long time, long seq) {
        throw new UnsupportedOperationException("machine: a Vesta client has no machine ID of its own (its IDs carry"
                + " the machine ID of the server that issued them); use makeId(time, seq, machine)");
    }

    /** The layout the servers issue. */
    public IdType type() {
        return type;
    }

    /** The servers' epoch. */
    public Instant epoch() {
        return codec().epoch();
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
        fetcher.close();
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

    private long fallbackId() {
        fallbackIds.increment();
        return fallback.genId();
    }

    /** A batch fetched on the caller's thread, for {@link #genIds} calls the prefetched batch cannot serve. */
    private long[] fetchNow(int count) {
        ServerRotation.Round round = rotation.run(server -> fetcher.fetchOnCallersThread(server, count));
        if (round.ids() != null) {
            return round.ids();
        }
        if (fallback != null) {
            fallbackIds.add(count);
            return fallback.genIds(count);
        }
        throw new ServersUnavailableException(round.failures());
    }
}
