package io.vesta.benchmarks;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.sequence.SequencerStrategy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The CPU cost of one ID without the ceiling: the same generators as {@link RealClockThroughputBenchmark} on a
 * {@link VirtualTimeSource}, whose clock jumps to the next unit as soon as a unit is used up. Both scores are
 * nanoseconds per ID: {@code genIds1000} counts 1000 operations per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
// A fixed, pre-touched heap: on this kind of VM the first touch of a page costs so much that a fork whose
// heap grows measures page faults (genIds1000 read 17-43 ns/ID growing, 0.75 ns/ID pre-touched).
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"})
@Threads(1)
public class VirtualClockCostBenchmark {

    static final int BATCH = 1000;
    static final long BLOCK_START = RealClockThroughputBenchmark.BLOCK_START;

    @Param({"MAX_PEAK", "MIN_GRANULARITY"})
    public IdType type;

    @Param({"LOCK", "SYNCHRONIZED", "CAS"})
    public SequencerStrategy sequencer;

    /**
     * How many machine IDs the generator holds ({@code vesta.machine-id.block-size}): the ceiling is that many times
     * one ID's. 1 unless a run asks for more ({@code -p blockSize=1,4,8,16}).
     */
    @Param({"1"})
    public int blockSize;

    private EmbeddedIdService service;

    @Setup(Level.Trial)
    public void build() {
        service = EmbeddedIdService.builder()
                .type(type)
                .machineId(BLOCK_START)
                .machineIdBlockSize(blockSize)
                .sequencer(sequencer)
                .timeSource(new VirtualTimeSource(System.currentTimeMillis()))
                .build();
    }

    @TearDown(Level.Trial)
    public void close() {
        service.close();
    }

    @Benchmark
    public long genId() {
        return service.genId();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long[] genIds1000() {
        return service.genIds(BATCH);
    }
}
