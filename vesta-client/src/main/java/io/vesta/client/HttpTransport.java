package io.vesta.client;

import io.vesta.protocol.BatchProtocol;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Asks a server for a batch over HTTP with the JDK {@link HttpClient}, within a timeout that covers the whole
 * exchange, body included: the request's own timeout covers only the wait for the response headers, and a server
 * that stalls in the middle of a body would otherwise hold a fetch for as long as it likes.
 */
final class HttpTransport implements AutoCloseable {

    private static final Pattern PROBLEM_DETAIL = Pattern.compile("\"detail\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final HttpClient http;
    private final Duration timeout;
    /** Sent with every request, after the checks of {@link RemoteIdServiceBuilder#header}: name, value, name, ... */
    private final String[] headers;
    /** Interrupts a blocking exchange that outlives the timeout (see {@link #sendWithin}). */
    private final ScheduledThreadPoolExecutor watchdog;
    private volatile boolean closed;

    HttpTransport(HttpClient userClient, Duration timeout) {
        this(userClient, null, null, Map.of(), timeout);
    }

    /**
     * @param userClient the client the user configured (TLS settings, a proxy), or null for an HTTP/1.1 client of its own
     * @param sslContext TLS of the client of its own (with {@code userClient} null), or null for the JDK's default
     * @param sslParameters the protocols and ciphers to enable with {@code sslContext}, or null for its defaults
     * @param headers extra headers of every request
     * @param timeout the longest one exchange may take
     */
    HttpTransport(HttpClient userClient, SSLContext sslContext, SSLParameters sslParameters, Map<String, String> headers,
            Duration timeout) {
        this.timeout = timeout;
        this.headers = headers.entrySet().stream().flatMap(header -> Stream.of(header.getKey(), header.getValue()))
                .toArray(String[]::new);
        // The client's own tasks (reading a response into a byte array) never block, so they run on the
        // client's selector thread rather than being handed to a pool: on a busy machine every hand-off between
        // threads costs a scheduling delay, and a fetch would otherwise pay several.
        this.http = userClient != null ? userClient : ownClient(sslContext, sslParameters, timeout);
        this.watchdog = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "vesta-client-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        this.watchdog.setRemoveOnCancelPolicy(true);
    }

    private static HttpClient ownClient(SSLContext sslContext, SSLParameters sslParameters, Duration timeout) {
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Runnable::run);
        if (sslContext != null) {
            builder.sslContext(sslContext);
        }
        if (sslParameters != null) {
            builder.sslParameters(sslParameters);
        }
        return builder.build();
    }

    /**
     * The answer of a {@code GET uri} for a batch, when its status is 200.
     * @param interruptible true on a thread of the client's own, which the transport may interrupt to cut a
     *                      stalled exchange short; false on a caller's thread, which must never see such an interrupt
     * @throws IOException when the exchange fails, takes longer than the timeout, or the status is not 200 (the
     *                     message carries the problem's detail)
     * @throws InterruptedException when the thread was interrupted for another reason, or the transport is closed
     */
    HttpResponse<byte[]> get(URI uri, boolean interruptible) throws IOException, InterruptedException {
        return get(uri, interruptible, null);
    }

    /**
     * {@link #get(URI, boolean)}, calling {@code onAnswered} as soon as the status line and headers of a 200 answer have
     * arrived, before its body: a server writes them only once the whole batch is reserved.
     * @param onAnswered may be null; runs on the exchange's thread and must return at once
     */
    HttpResponse<byte[]> get(URI uri, boolean interruptible, Runnable onAnswered) throws IOException, InterruptedException {
        HttpResponse.BodyHandler<byte[]> handler = onAnswered == null ? HttpResponse.BodyHandlers.ofByteArray() : info -> {
            if (info.statusCode() == 200) {
                onAnswered.run();
            }
            return HttpResponse.BodySubscribers.ofByteArray();
        };
        HttpRequest.Builder builder = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Accept", BatchProtocol.MEDIA_TYPE + ", application/problem+json")
                .GET();
        if (headers.length > 0) {
            builder.headers(headers);
        }
        HttpRequest request = builder.build();
        HttpResponse<byte[]> response = interruptible ? sendWithin(request, handler) : sendAsyncWithin(request, handler);
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode() + problemDetail(response.body()));
        }
        return response;
    }

    /** What went wrong in an exchange, in the words of a {@link ServersUnavailableException}. */
    String describe(Exception e) {
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

    /**
     * Stops the watchdog; from now on an interrupt of an interruptible exchange means closing, never a timeout,
     * and a new interruptible exchange fails at once.
     */
    @Override
    public void close() {
        closed = true;
        watchdog.shutdownNow();
    }

    /**
     * A blocking send, which the watchdog interrupts at the timeout. A blocking send is the cheapest exchange the
     * JDK client offers (an asynchronous one pays one more hand-off between threads), and an interrupt is how a
     * blocking send is cut short.
     */
    private HttpResponse<byte[]> sendWithin(HttpRequest request, HttpResponse.BodyHandler<byte[]> handler)
            throws IOException, InterruptedException {
        Alarm alarm = new Alarm(Thread.currentThread());
        ScheduledFuture<?> scheduled;
        try {
            scheduled = watchdog.schedule(alarm::ring, timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            throw new InterruptedException("closed");
        }
        try {
            return http.send(request, handler);
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
    private HttpResponse<byte[]> sendAsyncWithin(HttpRequest request, HttpResponse.BodyHandler<byte[]> handler)
            throws IOException, InterruptedException {
        CompletableFuture<HttpResponse<byte[]>> exchange = http.sendAsync(request, handler);
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
}
