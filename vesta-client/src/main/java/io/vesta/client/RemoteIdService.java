package io.vesta.client;

import io.vesta.protocol.BatchProtocol;
import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.client.ServersUnavailableException.ServerFailure;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.machine.MachineIdRange;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An {@link IdService} whose IDs come from central servers ({@link BatchProtocol}), genMethod 1.
 *
 * <p><b>Prefetch.</b> IDs arrive in batches of {@code prefetch}. As in Leaf's double buffer, the next batch is
 * fetched in the background while the current one is still in use: once {@code refillThreshold} of it is used
 * (by default 0.1, a tenth, as in Leaf), one background thread asks for the next. {@link #genId()} is then an index
 * increment on an array; it waits only when both batches are used up before a server has answered.
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
 * a machine ID in the server range, strictly increasing; and the server's epoch must equal this client's. That
 * costs about a nanosecond per ID against microseconds for the request, and it turns a wrong URL (a REST
 * endpoint, another application, a proxy's page) or a misconfigured server into a failover with a clear error,
 * rather than into IDs that claim to be a server's and may repeat an embedded node's or another server's.
 *
 * <p>{@link #expId}, {@link #transTime} and {@link #makeId} are local: the layout is known. IDs of batches
 * still in memory at {@link #close()} are never issued; like every unused ID they are a gap, never a repeat.
 */
public final class RemoteIdService implements IdService, AutoCloseable {

    public static final int DEFAULT_PREFETCH = 1000;
    public static final double DEFAULT_REFILL_THRESHOLD = 0.1;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);

    private static final Pattern PROBLEM_DETAIL = Pattern.compile("\"detail\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final List<IdServer> servers;
    private final IdType type;
    private final long version;
    private final IdCodec codec;
    private final MachineIdRange serverRange;
    private final int prefetch;
    private final double refillThreshold;
    /** Taking the ID at this index of a batch starts the fetch of the next batch. */
    private final int refillIndex;
    private final Duration timeout;
    private final IdService fallback;
    private final HttpClient http;
    private final ScheduledThreadPoolExecutor refiller;
    /** Interrupts a fetch of the refill thread that outlives the timeout (see {@link #sendWithin}). */
    private final ScheduledThreadPoolExecutor watchdog;
    private volatile Thread refillThread;
    private final long maxWaitNanos;

    private volatile Batch current = Batch.EMPTY;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition roundEnded = lock.newCondition();
    // Guarded by lock.
    private Batch next;
    private boolean fetching;
    private List<ServerFailure> failure;
    private long retryAtNanos;
    private long roundsEnded;
    private int nextServer;
    private volatile boolean closed;

    private final LongAdder batchesFetched = new LongAdder();
    private final LongAdder fallbackIds = new LongAdder();

    private RemoteIdService(Builder builder, List<IdServer> servers) {
        this.servers = servers;
        this.type = builder.type;
        this.version = builder.version;
        this.codec = new IdCodec(builder.epoch);
        this.serverRange = builder.serverRange;
        this.prefetch = builder.prefetch;
        this.refillThreshold = builder.refillThreshold;
        this.refillIndex = (int) Math.min(prefetch - 1, Math.round(prefetch * refillThreshold));
        this.timeout = builder.timeout;
        this.fallback = builder.fallback;
        // The client's own tasks (reading a response into a byte array) never block, so they run on the
        // client's selector thread rather than being handed to a pool: on a busy machine every hand-off between
        // threads costs a scheduling delay, and a fetch would otherwise pay several.
        this.http = builder.httpClient != null ? builder.httpClient : HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(builder.timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Runnable::run)
                .build();
        this.refiller = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "vesta-client-refill");
            thread.setDaemon(true);
            refillThread = thread;
            return thread;
        });
        this.refiller.setRemoveOnCancelPolicy(true);
        this.watchdog = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "vesta-client-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        this.watchdog.setRemoveOnCancelPolicy(true);
        this.maxWaitNanos = servers.size() * timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        lock.lock();
        try {
            startRound();
        } finally {
            lock.unlock();
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public long genId() {
        while (true) {
            Batch batch = current;
            int index = batch.take();
            if (index >= 0) {
                if (index == refillIndex) {
                    refillInBackground();
                }
                return batch.ids[index];
            }
            if (advance(batch)) {
                fallbackIds.increment();
                return fallback.genId();
            }
        }
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
        Batch batch = current;
        int start = batch.take(count);
        if (start >= 0) {
            if (start <= refillIndex && refillIndex < start + count) {
                refillInBackground();
            }
            return Arrays.copyOfRange(batch.ids, start, start + count);
        }
        return fetchNow(count);
    }

    @Override
    public Id expId(long id) {
        return codec.expId(id);
    }

    @Override
    public Instant transTime(long time) {
        return codec.transTime(type, time);
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

    public IdType type() {
        return type;
    }

    public Instant epoch() {
        return codec.epoch();
    }

    public long version() {
        return version;
    }

    /** The servers' base URLs, in configured order. */
    public List<URI> servers() {
        return servers.stream().map(IdServer::base).toList();
    }

    public int prefetch() {
        return prefetch;
    }

    public double refillThreshold() {
        return refillThreshold;
    }

    public Duration timeout() {
        return timeout;
    }

    public MachineIdRange serverRange() {
        return serverRange;
    }

    /** The local generator used while no server answers, if there is one. */
    public Optional<IdService> fallback() {
        return Optional.ofNullable(fallback);
    }

    /** How many batches servers have delivered (prefetched ones; not the direct fetches of large {@link #genIds}). */
    public long batchesFetched() {
        return batchesFetched.sum();
    }

    /** How many IDs came from the fallback because no server answered. */
    public long fallbackIds() {
        return fallbackIds.sum();
    }

    /** Stops background fetching and closes the fallback. IDs still buffered are dropped: gaps, never repeats. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            next = null;
            roundEnded.signalAll();
        } finally {
            lock.unlock();
        }
        refiller.shutdownNow();
        watchdog.shutdownNow();
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
        return "RemoteIdService[" + type + ", servers " + servers + ", prefetch " + prefetch + ", timeout "
                + timeout.toMillis() + " ms" + (fallback != null ? ", fallback " + fallback : "") + "]";
    }

    /**
     * Called when {@code exhausted} has no ID left: makes the next batch current, or waits for the round that
     * fetches it. Returns false when the caller should take from {@link #current} again, true when it should
     * take from the fallback; throws when there is neither.
     */
    private boolean advance(Batch exhausted) {
        boolean interrupted = false;
        lock.lock();
        try {
            long seenRounds = roundsEnded;
            long deadline = System.nanoTime() + maxWaitNanos;
            while (true) {
                if (closed) {
                    throw new IllegalStateException("This RemoteIdService is closed");
                }
                if (current != exhausted) {
                    return false;
                }
                if (next != null) {
                    current = next;
                    next = null;
                    return false;
                }
                long now = System.nanoTime();
                if (failure != null) {
                    boolean roundFailedWhileWaiting = roundsEnded != seenRounds;
                    boolean everyServerBackingOff = !fetching && now - retryAtNanos < 0;
                    if (fallback != null) {
                        if (!fetching && !everyServerBackingOff) {
                            startRound();
                        }
                        return true;
                    }
                    if (roundFailedWhileWaiting) {
                        throw new ServersUnavailableException(failure);
                    }
                    if (everyServerBackingOff) {
                        throw new ServersUnavailableException(servers.stream().map(s -> s.skipped(now)).toList());
                    }
                }
                if (!fetching) {
                    startRound();
                }
                long remaining = deadline - now;
                if (remaining <= 0) {
                    throw new IllegalStateException("No batch of IDs arrived within " + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos)
                            + " ms (" + servers.size() + " servers, timeout " + timeout.toMillis() + " ms each)");
                }
                try {
                    roundEnded.awaitNanos(remaining);
                } catch (InterruptedException e) {
                    // The wait is bounded; like the generator's own waits, an interrupt does not cut it short.
                    interrupted = true;
                }
            }
        } finally {
            lock.unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void refillInBackground() {
        lock.lock();
        try {
            if (!closed && !fetching && next == null && failure == null) {
                startRound();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Call with the lock held. */
    private void startRound() {
        if (closed) {
            return;
        }
        fetching = true;
        try {
            refiller.execute(this::runRound);
        } catch (RejectedExecutionException e) {
            fetching = false;
        }
    }

    private void retryAfterBackoff() {
        lock.lock();
        try {
            if (!closed && !fetching && next == null && failure != null) {
                startRound();
            }
        } finally {
            lock.unlock();
        }
    }

    private void runRound() {
        int start;
        lock.lock();
        try {
            start = nextServer;
            nextServer = (start + 1) % servers.size();
        } finally {
            lock.unlock();
        }
        List<ServerFailure> failures = new ArrayList<>();
        Batch batch = null;
        try {
            for (int k = 0; k < servers.size() && batch == null && !closed; k++) {
                IdServer server = servers.get((start + k) % servers.size());
                long now = System.nanoTime();
                if (server.backingOff(now)) {
                    failures.add(server.skipped(now));
                    continue;
                }
                try {
                    batch = new Batch(fetch(server, prefetch));
                    server.succeeded();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                } catch (IOException | RuntimeException e) {
                    failures.add(server.failed(describe(e), System.nanoTime()));
                } catch (Error e) {
                    // A LinkageError, an OutOfMemoryError, an AssertionError from an HttpClient of the user's: the
                    // round must still end below, or no round would ever start again and every caller would wait
                    // out its timeout with the fallback unused.
                    failures.add(server.failed("failed unexpectedly: " + e, System.nanoTime()));
                }
            }
        } finally {
            endRound(batch, failures);
        }
    }

    private void endRound(Batch batch, List<ServerFailure> failures) {
        lock.lock();
        try {
            fetching = false;
            roundsEnded++;
            if (batch != null) {
                batchesFetched.increment();
                next = batch;
                failure = null;
            } else if (!closed) {
                failure = failures;
                // Retry when the first backoff ends: that server is the first worth asking again.
                long now = System.nanoTime();
                long retryAt = 0;
                for (int i = 0; i < servers.size(); i++) {
                    IdServer server = servers.get(i);
                    long until = server.backingOff(now) ? server.backoffUntilNanos() : now;
                    if (i == 0 || until - retryAt < 0) {
                        retryAt = until;
                    }
                }
                retryAtNanos = retryAt;
                try {
                    refiller.schedule(this::retryAfterBackoff, Math.max(0, retryAt - now), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException e) {
                    // closed meanwhile
                }
            }
            roundEnded.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A batch fetched on the caller's thread, for {@link #genIds} calls the prefetched batch cannot serve. */
    private long[] fetchNow(int count) {
        int start;
        lock.lock();
        try {
            start = nextServer;
            nextServer = (start + 1) % servers.size();
        } finally {
            lock.unlock();
        }
        List<ServerFailure> failures = new ArrayList<>();
        boolean interrupted = false;
        try {
            for (int k = 0; k < servers.size(); k++) {
                IdServer server = servers.get((start + k) % servers.size());
                long now = System.nanoTime();
                if (server.backingOff(now)) {
                    failures.add(server.skipped(now));
                    continue;
                }
                try {
                    long[] ids = fetch(server, count);
                    server.succeeded();
                    return ids;
                } catch (InterruptedException e) {
                    interrupted = true;
                    failures.add(new ServerFailure(server.base(), "interrupted", false, 0));
                    break;
                } catch (IOException | RuntimeException e) {
                    failures.add(server.failed(describe(e), System.nanoTime()));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (fallback != null) {
            fallbackIds.add(count);
            return fallback.genIds(count);
        }
        throw new ServersUnavailableException(failures);
    }

    private long[] fetch(IdServer server, int count) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(server.batchUri(count))
                .timeout(timeout)
                .header("Accept", BatchProtocol.MEDIA_TYPE + ", application/problem+json")
                .GET()
                .build();
        HttpResponse<byte[]> response = Thread.currentThread() == refillThread ? sendWithin(request) : sendAsyncWithin(request);
        byte[] body = response.body();
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode() + problemDetail(body));
        }
        Optional<String> epochHeader = response.headers().firstValue(BatchProtocol.EPOCH_HEADER);
        if (epochHeader.isPresent() && !epochHeader.get().trim().equals(Long.toString(codec.epochMillis()))) {
            throw new InvalidBatchException("the server's epoch is " + epochOf(epochHeader.get()) + " but this client's is "
                    + codec.epoch() + "; both must use the same epoch (vesta.epoch) or decoded times are wrong");
        }
        long[] ids;
        try {
            ids = BatchProtocol.decode(body);
        } catch (IllegalArgumentException e) {
            throw new InvalidBatchException("the response is not a batch: " + e.getMessage());
        }
        check(server, ids, count);
        return ids;
    }

    /**
     * A blocking send on the refill thread, which the watchdog interrupts at the timeout. The request's own timeout
     * covers the wait for the response headers only, not the body; a blocking send is the cheapest exchange the
     * JDK client offers (an asynchronous one pays one more hand-off between threads), and an interrupt is how a
     * blocking send is cut short.
     */
    private HttpResponse<byte[]> sendWithin(HttpRequest request) throws IOException, InterruptedException {
        Alarm alarm = new Alarm(Thread.currentThread());
        ScheduledFuture<?> scheduled;
        try {
            scheduled = watchdog.schedule(alarm::ring, timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw new InterruptedException("closed");
        }
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            if (closed || !alarm.rang()) {
                throw e;
            }
            throw new HttpTimeoutException("timed out after " + timeout.toMillis() + " ms");
        } finally {
            scheduled.cancel(false);
            if (alarm.disarm()) {
                // The alarm went off after the response was complete: its interrupt is not meant for what comes next.
                Thread.interrupted();
                if (closed) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** An exchange on a caller's thread, which must not be interrupted: bounded by waiting on the future. */
    private HttpResponse<byte[]> sendAsyncWithin(HttpRequest request) throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<byte[]>> exchange = http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
        try {
            return exchange.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw new HttpTimeoutException("timed out after " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            exchange.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IOException(cause);
        }
    }

    /** Interrupts one thread once, unless disarmed first; the two never race. */
    private static final class Alarm {

        private final Thread thread;
        private boolean armed = true;
        private boolean rang;

        Alarm(Thread thread) {
            this.thread = thread;
        }

        synchronized void ring() {
            if (armed) {
                armed = false;
                rang = true;
                thread.interrupt();
            }
        }

        synchronized boolean rang() {
            return rang;
        }

        /** Disarms the alarm; returns whether it had already rung. */
        synchronized boolean disarm() {
            armed = false;
            return rang;
        }
    }

    private void check(IdServer server, long[] ids, int count) throws InvalidBatchException {
        if (ids.length != count) {
            throw new InvalidBatchException("asked for " + count + " IDs, got " + ids.length);
        }
        long expectedConstant = (GenMethod.CENTRAL_SERVER.code() << IdLayout.GEN_METHOD_SHIFT) | (type.code() << IdLayout.TYPE_SHIFT);
        long constantMask = (IdLayout.MAX_GEN_METHOD << IdLayout.GEN_METHOD_SHIFT) | (IdLayout.MAX_TYPE << IdLayout.TYPE_SHIFT);
        long min = serverRange.min();
        long max = serverRange.max();
        for (int i = 0; i < ids.length; i++) {
            long id = ids[i];
            long machine = id & IdLayout.MAX_MACHINE;
            if ((id & constantMask) != expectedConstant || machine < min || machine > max
                    || (i > 0 && Long.compareUnsigned(id, ids[i - 1]) <= 0)) {
                throw new InvalidBatchException(whatIsWrong(server, ids, i));
            }
        }
    }

    private String whatIsWrong(IdServer server, long[] ids, int i) {
        Id fields = codec.expId(ids[i]);
        if (fields.genMethod() != GenMethod.CENTRAL_SERVER.code()) {
            return "ID " + ids[i] + " has genMethod " + fields.genMethod() + ", not 1 (central-server): is " + server.base()
                    + " the base URL of a Vesta server?";
        }
        if (fields.type() != type.code()) {
            return "ID " + ids[i] + " is of type " + fields.idType() + " but this client is configured for " + type
                    + " (vesta.type must be the same on servers and clients)";
        }
        if (!serverRange.contains(fields.machine())) {
            return "ID " + ids[i] + " has machine ID " + fields.machine() + ", outside the server range " + serverRange
                    + " (vesta.machine-id.server-range)";
        }
        return "ID " + ids[i] + " at position " + i + " does not follow " + ids[i - 1] + ": a batch must be strictly increasing";
    }

    private static String epochOf(String header) {
        try {
            return Instant.ofEpochMilli(Long.parseLong(header.trim())).toString();
        } catch (NumberFormatException e) {
            return "'" + header + "'";
        }
    }

    private static String problemDetail(byte[] body) {
        if (body == null || body.length == 0) {
            return "";
        }
        String text = new String(body, 0, Math.min(body.length, 2000), StandardCharsets.UTF_8);
        Matcher detail = PROBLEM_DETAIL.matcher(text);
        if (detail.find()) {
            return ": " + detail.group(1).replace("\\\"", "\"").replace("\\\\", "\\");
        }
        String firstLine = text.strip().lines().findFirst().orElse("");
        return firstLine.isEmpty() ? "" : ": " + (firstLine.length() > 200 ? firstLine.substring(0, 200) + "..." : firstLine);
    }

    private String describe(Exception e) {
        if (e instanceof HttpConnectTimeoutException) {
            return "connect timed out after " + timeout.toMillis() + " ms";
        }
        if (e instanceof HttpTimeoutException) {
            return "timed out after " + timeout.toMillis() + " ms";
        }
        if (e instanceof InvalidBatchException) {
            return "invalid batch: " + e.getMessage();
        }
        if (e instanceof ConnectException) {
            return "cannot connect (" + (e.getMessage() != null ? e.getMessage() : "connection refused") + ")";
        }
        if (e.getClass() == IOException.class && e.getMessage() != null) {
            return e.getMessage();
        }
        return e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
    }

    /** A response that is not a batch this client may hand out. */
    private static final class InvalidBatchException extends IOException {

        InvalidBatchException(String message) {
            super(message);
        }
    }

    /** IDs of one server's one reservation, handed out by index. */
    private static final class Batch {

        static final Batch EMPTY = new Batch(new long[0]);

        final long[] ids;
        private final AtomicInteger taken = new AtomicInteger();

        Batch(long[] ids) {
            this.ids = ids;
        }

        /** The index of the next ID, or -1 when the batch is used up. */
        int take() {
            // Reading before incrementing keeps the counter from running on (and wrapping) while callers wait
            // or use the fallback on a used-up batch: at most one overshoot per racing thread.
            if (taken.get() >= ids.length) {
                return -1;
            }
            int index = taken.getAndIncrement();
            return index < ids.length ? index : -1;
        }

        /** The first index of {@code count} consecutive IDs, or -1 when fewer are left. */
        int take(int count) {
            if (taken.get() > ids.length - count) {
                return -1;
            }
            int start = taken.getAndAdd(count);
            return start <= ids.length - count ? start : -1;
        }
    }

    /** Settings of a {@link RemoteIdService}; every setting is checked in {@link #build()}. */
    public static final class Builder {

        private final List<URI> servers = new ArrayList<>();
        private IdType type = IdType.MAX_PEAK;
        private Instant epoch = IdCodec.DEFAULT_EPOCH;
        private long version;
        private MachineIdRange serverRange = MachineIdRange.SERVER;
        private int prefetch = DEFAULT_PREFETCH;
        private double refillThreshold = DEFAULT_REFILL_THRESHOLD;
        private Duration timeout = DEFAULT_TIMEOUT;
        private Duration initialBackoff = DEFAULT_INITIAL_BACKOFF;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private IdService fallback;
        private HttpClient httpClient;

        private Builder() {
        }

        /** Base URLs of the central servers, such as {@code http://10.0.0.1:8080}; at least one. */
        public Builder servers(List<URI> servers) {
            this.servers.clear();
            this.servers.addAll(servers);
            return this;
        }

        public Builder servers(String... servers) {
            return servers(Arrays.stream(servers).map(URI::create).toList());
        }

        /** The layout the servers issue; IDs of another type are refused. */
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

        /** IDs per batch, 1 to {@value IdService#MAX_BATCH}. */
        public Builder prefetch(int prefetch) {
            this.prefetch = prefetch;
            return this;
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

        /** Checks every setting and starts fetching the first batch in the background. */
        public RemoteIdService build() {
            require("type", type);
            require("epoch", epoch);
            require("serverRange", serverRange);
            require("timeout", timeout);
            require("initialBackoff", initialBackoff);
            require("maxBackoff", maxBackoff);
            if (servers.isEmpty()) {
                throw new IllegalArgumentException("servers must list at least one base URL, such as http://10.0.0.1:8080, was empty");
            }
            Set<URI> seen = new LinkedHashSet<>();
            for (URI server : servers) {
                checkServer(server);
                if (!seen.add(server)) {
                    throw new IllegalArgumentException("servers lists " + server + " twice; each server must appear once");
                }
            }
            if (version < 0 || version > IdLayout.MAX_VERSION) {
                throw new IllegalArgumentException("version must be in [0, " + IdLayout.MAX_VERSION + "], was " + version);
            }
            if (prefetch < 1 || prefetch > MAX_BATCH) {
                throw new IllegalArgumentException("prefetch must be in [1, " + MAX_BATCH + "], was " + prefetch);
            }
            if (!(refillThreshold >= 0 && refillThreshold <= 1)) {
                throw new IllegalArgumentException("refillThreshold must be in [0, 1], was " + refillThreshold);
            }
            checkDuration("timeout", timeout, Duration.ofMillis(1), Duration.ofMinutes(10));
            checkDuration("initialBackoff", initialBackoff, Duration.ofMillis(1), Duration.ofHours(1));
            checkDuration("maxBackoff", maxBackoff, initialBackoff, Duration.ofHours(1));
            if (fallback instanceof EmbeddedIdService embedded) {
                if (embedded.genMethod() != GenMethod.EMBEDDED) {
                    throw new IllegalArgumentException("fallback must issue genMethod 0 (embedded) IDs, was " + embedded.genMethod()
                            + ": a fallback with a server's genMethod could repeat a server's IDs");
                }
                if (embedded.type() != type) {
                    throw new IllegalArgumentException("fallback must issue IDs of type " + type + ", was " + embedded.type());
                }
            }
            long initialNanos = initialBackoff.toNanos();
            long maxNanos = maxBackoff.toNanos();
            List<IdServer> idServers = servers.stream().map(uri -> new IdServer(uri, initialNanos, maxNanos)).toList();
            return new RemoteIdService(this, idServers);
        }

        private static void checkServer(URI server) {
            if (server == null || !server.isAbsolute() || server.getHost() == null
                    || !("http".equalsIgnoreCase(server.getScheme()) || "https".equalsIgnoreCase(server.getScheme()))
                    || server.getRawQuery() != null || server.getRawFragment() != null) {
                throw new IllegalArgumentException("servers entry '" + server + "' must be an http or https base URL with a host"
                        + " and no query, such as http://10.0.0.1:8080");
            }
        }

        private static void checkDuration(String name, Duration value, Duration min, Duration max) {
            if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + " must be in [" + min.toMillis() + "ms, " + max.toMillis() + "ms], was "
                        + value.toMillis() + "ms");
            }
        }

        private static void require(String name, Object value) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must be set");
            }
        }
    }
}
