package io.vesta.benchmarks;

import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/** The {@link Peers} in IDs per second, under the settings of {@link RealClockThroughputBenchmark}. */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 5)
// A fixed, pre-touched heap: on this kind of VM the first touch of a page costs so much that a fork whose
// heap grows measures page faults (genIds1000 read 17-43 ns/ID growing, 0.75 ns/ID pre-touched).
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"})
@Threads(1)
public class PeerThroughputBenchmark extends Peers {
}
