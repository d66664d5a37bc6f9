package io.vesta.machine.zookeeper;

import io.vesta.machine.LeaseTimer;

/**
 * A provider's report timer whose reports, and its claims after a loss, wait while a test holds this object's
 * monitor: the node is silent, as in a long pause, while the test's own calls go through.
 */
final class HeldReports implements LeaseTimer {

    @Override
    public AutoCloseable every(String name, long periodMillis, Runnable tick) {
        return LeaseTimer.daemonThread().every(name, periodMillis, () -> {
            synchronized (this) {
                tick.run();
            }
        });
    }
}
