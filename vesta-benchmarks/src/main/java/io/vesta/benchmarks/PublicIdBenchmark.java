package io.vesta.benchmarks;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.publicid.Ff1PublicIds;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * What a public ID costs beside the ID itself: {@code genId} on a {@link VirtualTimeSource} (its CPU cost, as in
 * {@link VirtualClockCostBenchmark}), {@link Ff1PublicIds#toPublic} and {@link Ff1PublicIds#fromPublic} (FF1 with
 * AES-128, Bouncy Castle) over 4,096 IDs of the generator, taken in turn, all nanoseconds per operation in one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"})
@Threads(1)
public class PublicIdBenchmark {

    static final int IDS = 4096;

    private EmbeddedIdService service;
    private Ff1PublicIds publicIds;
    private final long[] ids = new long[IDS];
    private final String[] shown = new String[IDS];
    private int next;

    @Setup(Level.Trial)
    public void build() {
        service = EmbeddedIdService.builder().type(IdType.MAX_PEAK).machineId(7)
                .timeSource(new VirtualTimeSource(System.currentTimeMillis())).build();
        byte[] key = new byte[16];
        new SplittableRandom(28).nextBytes(key);
        publicIds = Ff1PublicIds.builder().key(1, key).build();
        for (int i = 0; i < IDS; i++) {
            ids[i] = service.genId();
            shown[i] = publicIds.toPublic(ids[i]);
        }
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
    public String toPublic() {
        return publicIds.toPublic(ids[next++ & (IDS - 1)]);
    }

    @Benchmark
    public long fromPublic() {
        return publicIds.fromPublic(shown[next++ & (IDS - 1)]);
    }
}
