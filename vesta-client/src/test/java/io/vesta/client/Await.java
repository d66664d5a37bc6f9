package io.vesta.client;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Waits for what a background thread does, bounded so that a test never hangs. */
final class Await {

    private Await() {
    }

    /** Polls {@code condition} until it holds; fails the test after five seconds. */
    static void until(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 5 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
