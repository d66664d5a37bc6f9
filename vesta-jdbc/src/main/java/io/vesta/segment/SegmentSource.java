package io.vesta.segment;

import io.vesta.sequence.AdaptiveStep;
import io.vesta.time.TimeSource;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * Where a service's segments come from, shared by all its {@link SegmentBuffer}s: the table, the step rule's
 * settings, the threads that load in the background, and which tags a first load may create.
 */
final class SegmentSource {

    private static final AtomicInteger SERVICES = new AtomicInteger();

    final SegmentTable table;
    final TimeSource timeSource;
    final double refillThreshold;
    final long targetMillis;
    final int maxStep;
    final long retryIntervalMillis;
    final DatedTags datedTags;
    private final boolean autoCreate;
    private final Pattern autoCreateTags;
    private final ThreadPoolExecutor loader;
    private volatile boolean closed;

    SegmentSource(SegmentIdServiceBuilder settings) {
        this.table = new SegmentTable(settings.dataSource, settings.table, settings.defaultStep,
                (int) settings.timeout.toSeconds(), settings.settingPrefix + "timeout");
        this.timeSource = settings.timeSource;
        this.refillThreshold = settings.refillThreshold;
        this.targetMillis = settings.targetDuration.toMillis();
        this.maxStep = settings.maxStep;
        this.retryIntervalMillis = settings.retryInterval.toMillis();
        this.autoCreate = settings.autoCreate;
        this.datedTags = new DatedTags(settings.datedTags);
        this.autoCreateTags = settings.autoCreateTags == null || settings.autoCreateTags.isEmpty() ? null
                : Pattern.compile(settings.autoCreateTags);
        String prefix = "vesta-segment-loader-" + SERVICES.incrementAndGet() + "-";
        AtomicInteger threads = new AtomicInteger();
        this.loader = new ThreadPoolExecutor(settings.loaderThreads, settings.loaderThreads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, prefix + threads.incrementAndGet());
                    // A pending refill must never keep an application from exiting.
                    thread.setDaemon(true);
                    return thread;
                });
        this.loader.allowCoreThreadTimeOut(true);
    }

    /**
     * Whether a tag the table does not have is created by its first {@code nextId}: auto-creation covers it, or it
     * is the row of a period of a configured dated tag (configuring the tag is the explicit act).
     */
    boolean autoCreates(String bizTag) {
        return autoCreate || autoCreateTags != null && autoCreateTags.matcher(bizTag).matches()
                || datedTags.rowOf(bizTag) != null;
    }

    /** The max_id of a row created on first use, which is its first number: a dated tag's start, else 1. */
    long firstId(String bizTag) {
        DatedTag dated = datedTags.rowOf(bizTag);
        return dated == null ? 1 : dated.start();
    }

    /**
     * Runs a background load.
     * @throws java.util.concurrent.RejectedExecutionException once {@link #close()} has begun
     */
    void inBackground(Runnable load) {
        loader.execute(load);
    }

    boolean closed() {
        return closed;
    }

    /**
     * The step of a tag's next load, {@link #nextStep(int, int, int, long, long)} under this service's settings; for
     * a dated tag's row at most {@link DatedTag#maxStep()}.
     */
    int nextStep(String bizTag, int step, int tableStep, long elapsedMillis) {
        DatedTag dated = datedTags.rowOf(bizTag);
        int max = dated == null ? maxStep : Math.min(maxStep, dated.maxStep());
        return nextStep(step, tableStep, max, elapsedMillis, targetMillis);
    }

    /** The step of a row created on first use: the default step, for a dated tag's row at most its cap. */
    int firstStep(String bizTag) {
        DatedTag dated = datedTags.rowOf(bizTag);
        return dated == null ? table.defaultStep() : Math.min(table.defaultStep(), dated.maxStep());
    }

    /**
     * The step of the next load, from how long the previous segment lasted (the time between two loads), by
     * {@link AdaptiveStep}. The table's step is the floor, even above {@code maxStep}: the table is the operator's word.
     */
    static int nextStep(int step, int tableStep, int maxStep, long elapsedMillis, long targetMillis) {
        return (int) AdaptiveStep.next(step, elapsedMillis, targetMillis, tableStep, maxStep);
    }

    /** Stops the loader threads, waiting up to {@code closeWait} for a load in flight. */
    void close(Duration closeWait) {
        closed = true;
        loader.shutdown();
        try {
            loader.awaitTermination(closeWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
