package io.vesta.test;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waiting, in real time and within a bound, for what another thread, process or server does. */
public final class Await {

    private static final long POLL_MILLIS = 10;

    private Await() {
    }

    /**
     * Returns once {@code condition} holds, checking it every 10 ms.
     * @throws AssertionError naming {@code what} when it still does not hold after {@code within}
     */
    public static void until(String what, Duration within, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Not within " + within.toMillis() + " ms: " + what);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
