package io.vesta.machine;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What runs a {@link LeasedMachineIdProvider}'s renewals: a daemon thread of its own in production, a scheduler of the
 * test's in a simulation that drives the provider step by step.
 */
@FunctionalInterface
public interface LeaseTimer {

    /**
     * Runs {@code tick} every {@code periodMillis}, the first time one period from now, until the returned handle is
     * closed. Closing it interrupts a tick that is running.
     * @param name a name for the thread that runs it
     */
    AutoCloseable every(String name, long periodMillis, Runnable tick);

    /** One daemon thread named {@code name}, with a fixed delay between ticks. */
    static LeaseTimer daemonThread() {
        return (name, periodMillis, tick) -> {
            ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, name);
                thread.setDaemon(true);
                return thread;
            });
            executor.scheduleWithFixedDelay(tick, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
            return executor::shutdownNow;
        };
    }
}
