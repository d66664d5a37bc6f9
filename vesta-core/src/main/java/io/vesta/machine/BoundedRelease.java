package io.vesta.machine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A release that may hang in its store, run on a daemon thread of its own and waited for within a bound, so that
 * neither a renewal stuck in the driver nor a release stuck the same way can hold {@code close()} longer.
 */
final class BoundedRelease {

    private BoundedRelease() {
    }

    /**
     * Starts {@code release} on a daemon thread named {@code name}, which completes the future it is given (null when
     * done), and waits for it at most {@code bound}.
     * @return null when the release completed with null in time, else what kept it from landing
     */
    static String run(String name, Duration bound, Consumer<CompletableFuture<String>> release) {
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread thread = new Thread(() -> release.accept(outcome), name);
        thread.setDaemon(true);
        thread.start();
        try {
            return outcome.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return "the release did not finish within " + bound.toMillis() + " ms (it may still land)";
        } catch (ExecutionException e) {
            return "the release failed: " + e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "close() was interrupted (the release may still land)";
        }
    }
}
