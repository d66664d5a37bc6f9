package io.vesta.client;

import io.vesta.protocol.BatchProtocol;
import io.vesta.client.ServersUnavailableException.ServerFailure;

import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * One central server as the client sees it: its address and its failure record. After {@code k} failures in a
 * row the server is left alone for {@code min(initial * 2^(k-1), max)}; one success clears the record.
 */
final class IdServer {

    private final URI base;
    private final String batchUrl;
    private final long initialBackoffNanos;
    private final long maxBackoffNanos;

    private int consecutiveFailures;
    private long backoffUntilNanos;
    private String lastError;
    /** Written under the lock, read without it when meters are scraped. */
    private volatile long failures;

    IdServer(URI base, long initialBackoffNanos, long maxBackoffNanos) {
        this.base = base;
        String text = base.toString();
        this.batchUrl = (text.endsWith("/") ? text.substring(0, text.length() - 1) : text) + BatchProtocol.PATH
                + "?" + BatchProtocol.COUNT_PARAMETER + "=";
        this.initialBackoffNanos = initialBackoffNanos;
        this.maxBackoffNanos = maxBackoffNanos;
    }

    URI base() {
        return base;
    }

    URI batchUri(int count) {
        return URI.create(batchUrl + count);
    }

    synchronized boolean backingOff(long nowNanos) {
        return consecutiveFailures > 0 && nowNanos - backoffUntilNanos < 0;
    }

    /** When the current backoff ends, by the rotation's ticker; only meaningful while backing off. */
    synchronized long backoffUntilNanos() {
        return backoffUntilNanos;
    }

    synchronized void succeeded() {
        consecutiveFailures = 0;
        lastError = null;
    }

    /** How many times the server failed, timed out or sent an invalid batch since the client started. */
    long failures() {
        return failures;
    }

    synchronized ServerFailure failed(String error, long nowNanos) {
        failures++;
        consecutiveFailures++;
        lastError = error;
        long backoff = Math.min(initialBackoffNanos, maxBackoffNanos);
        for (int i = 1; i < consecutiveFailures && backoff < maxBackoffNanos; i++) {
            backoff = Math.min(maxBackoffNanos, backoff * 2);
        }
        backoffUntilNanos = nowNanos + backoff;
        return new ServerFailure(base, error, false, TimeUnit.NANOSECONDS.toMillis(backoff));
    }

    synchronized ServerFailure skipped(long nowNanos) {
        return new ServerFailure(base, lastError, true, TimeUnit.NANOSECONDS.toMillis(Math.max(0, backoffUntilNanos - nowNanos)));
    }

    @Override
    public String toString() {
        return base.toString();
    }
}
