package io.vesta.benchmarks;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.layout.IdLayout;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.time.TimeSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
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
 * {@code genId()} on the real clock: how close one machine ID comes to its layout's ceiling (2^20 IDs/s for
 * MAX_PEAK, 1,024,000/s for MIN_GRANULARITY), or a block of {@code blockSize} machine IDs to that many times it. The generator is far faster than the ceiling, so it spends most
 * of the time waiting for the next unit; the score shows what the waits cost (late wake-ups, contention).
 *
 * <p>A MAX_PEAK unit is a whole second, issued in a burst of a few tens of milliseconds followed by a wait,
 * so the measurement iterations are 5 s long and each is lined up with the seconds (see {@link #alignToSecond()}).
 * JMH times each thread from its first call to the return of its last, so a call still waiting when the
 * iteration ends stretches the measured time rather than being dropped.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 5)
// A fixed, pre-touched heap: on this kind of VM the first touch of a page costs so much that a fork whose
// heap grows measures page faults (genIds1000 read 17-43 ns/ID growing, 0.75 ns/ID pre-touched).
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"})
public class RealClockThroughputBenchmark {

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

    /** The machine ID the generator starts at: the start of an aligned block of every size up to 16. */
    static final long BLOCK_START = 16;

    /** How long before a second boundary a MAX_PEAK iteration starts; see {@link #alignToSecond()}. */
    static final long LEAD_MILLIS = 5;

    private EmbeddedIdService service;

    @Setup(Level.Trial)
    public void build() {
        service = EmbeddedIdService.builder()
                .type(type)
                .machineId(BLOCK_START)
                .machineIdBlockSize(blockSize)
                .sequencer(sequencer)
                .timeSource(TimeSource.system())
                .build();
    }

    /**
     * Starts each MAX_PEAK iteration {@value #LEAD_MILLIS} ms before a second boundary, with the current
     * second's sequence already used up (outside the timed region). Unaligned, a 5 s window holds five or six
     * burst starts depending on where it falls, and an iteration that begins after an idle gap collects the
     * unused rest of the current second at once: single iterations read 0.9 to 1.2 of the ceiling. Aligned, the
     * window holds exactly five bursts; the first call waits out the lead, so the score reads at most
     * {@value #LEAD_MILLIS} ms in 5 s (0.1 %) low. Late wake-ups and contention inside the window are measured
     * as they are. MIN_GRANULARITY needs none of this: its edge effect is
     * at most one millisecond's sequence per iteration.
     */
    @Setup(Level.Iteration)
    public void alignToSecond() throws InterruptedException {
        if (type != IdType.MAX_PEAK) {
            return;
        }
        IdLayout layout = IdLayout.of(type);
        long epochMillis = service.epoch().toEpochMilli();
        for (;;) {
            long id;
            do {
                id = service.genId();
            } while (((id >>> layout.seqShift()) & layout.maxSeq()) != layout.maxSeq());
            long unit = (id >>> layout.timeShift()) & layout.maxTime();
            long startAt = epochMillis + (unit + 1) * layout.unitMillis() - LEAD_MILLIS;
            long now = System.currentTimeMillis();
            if (now < startAt) {
                Thread.sleep(startAt - now);
                return;
            }
            // The second was used up too close to its end: use up the next one instead.
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        service.close();
    }

    @Benchmark
    @Threads(1)
    public long genId1Thread() {
        return service.genId();
    }

    @Benchmark
    @Threads(2)
    public long genId2Threads() {
        return service.genId();
    }
}
