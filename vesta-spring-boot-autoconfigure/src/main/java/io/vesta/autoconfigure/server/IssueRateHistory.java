package io.vesta.autoconfigure.server;

import io.vesta.EmbeddedIdService;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * IDs a server issued per second over the last {@link #SECONDS} seconds, REST and the Java client's batches apart: a
 * daemon thread reads both generators' counters once a second into a ring. What the dashboard draws; it costs the
 * generators nothing, since their counters exist anyway.
 */
public final class IssueRateHistory implements AutoCloseable {

    /** Ten minutes. */
    public static final int SECONDS = 600;

    private final EmbeddedIdService rest;
    private final EmbeddedIdService centralServer;
    private final long[] seconds = new long[SECONDS];
    private final long[] restCounts = new long[SECONDS];
    private final long[] centralCounts = new long[SECONDS];
    private final ScheduledExecutorService sampler;
    private int size;
    private int next;
    private long lastRest;
    private long lastCentral;

    IssueRateHistory(ServerIdServices services) {
        this.rest = services.rest();
        this.centralServer = services.centralServer();
        this.lastRest = rest.idsIssued();
        this.lastCentral = centralServer.idsIssued();
        this.sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "vesta-issue-rate");
            thread.setDaemon(true);
            return thread;
        });
        long delay = 1000 - System.currentTimeMillis() % 1000;
        sampler.scheduleAtFixedRate(this::sample, delay, 1000, TimeUnit.MILLISECONDS);
    }

    synchronized void sample() {
        long restNow = rest.idsIssued();
        long centralNow = centralServer.idsIssued();
        seconds[next] = System.currentTimeMillis() / 1000;
        restCounts[next] = restNow - lastRest;
        centralCounts[next] = centralNow - lastCentral;
        lastRest = restNow;
        lastCentral = centralNow;
        next = (next + 1) % SECONDS;
        size = Math.min(size + 1, SECONDS);
    }

    /** The samples, oldest first: the Unix second each ended in, and the IDs issued in it by REST and by batches. */
    public synchronized List<Sample> samples() {
        List<Sample> samples = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            int at = (next - size + i + SECONDS) % SECONDS;
            samples.add(new Sample(seconds[at], restCounts[at], centralCounts[at]));
        }
        return samples;
    }

    @Override
    public void close() {
        sampler.shutdownNow();
    }

    /** One second: IDs issued over REST (genMethod 2) and in the Java client's batches (genMethod 1). */
    public record Sample(long second, long rest, long centralServer) {
    }
}
