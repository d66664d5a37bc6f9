package io.vesta.machine.zookeeper;

import io.vesta.time.TimeSource;

import java.time.Duration;

/** The system clock moved by a fixed offset: a node whose clock is wrong, while time still passes. */
final class ShiftedTimeSource implements TimeSource {

    private final long offsetMillis;

    ShiftedTimeSource(Duration offset) {
        this.offsetMillis = offset.toMillis();
    }

    @Override
    public long currentTimeMillis() {
        return System.currentTimeMillis() + offsetMillis;
    }

    @Override
    public boolean sleepUntil(long epochMillis, long maxNanos) {
        return TimeSource.system().sleepUntil(epochMillis - offsetMillis, maxNanos);
    }
}
