package io.vesta.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/** The {@link Peers} in ns per ID, under the settings of {@link VirtualClockCostBenchmark}. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
// A fixed, pre-touched heap: on this kind of VM the first touch of a page costs so much that a fork whose
// heap grows measures page faults (genIds1000 read 17-43 ns/ID growing, 0.75 ns/ID pre-touched).
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"})
@Threads(1)
public class PeerCostBenchmark extends Peers {

    /**
     * Not a peer: one read of the real clock, which every peer pays per ID and Vesta on the virtual clock
     * does not, so that the two kinds of score can be put side by side.
     */
    @Benchmark
    public long currentTimeMillis() {
        return System.currentTimeMillis();
    }
}
