package io.vesta.benchmarks;

import cn.hutool.core.lang.Snowflake;
import com.github.yitter.contract.IdGeneratorOptions;
import com.github.yitter.idgen.DefaultIdGenerator;
import me.ahoo.cosid.snowflake.MillisecondSnowflakeId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.UUID;

/**
 * Peer ID generators, one operation per ID, 1 thread. Subclasses fix the JMH mode and settings so that each
 * peer runs under exactly the settings of the Vesta benchmark it is compared with:
 * {@link PeerCostBenchmark} beside {@link VirtualClockCostBenchmark}, {@link PeerThroughputBenchmark} beside
 * {@link RealClockThroughputBenchmark}.
 *
 * <p>Every peer but UUID reads the real clock on every call and waits for the next millisecond when its sequence
 * is used up, so under a saturating benchmark its score is bounded by its own ceiling (the constants below, from each
 * library's defaults as read from its bytecode). Each peer has its own state class so that a fork builds only
 * the peer it measures: Yitter keeps its worker in a static field, and a second {@link DefaultIdGenerator} in
 * the same JVM would replace the first. For the same reason do not run these with {@code -f 0}.
 */
public abstract class Peers {

    /** Hutool: 12-bit sequence 0..4095 per millisecond. */
    public static final long HUTOOL_CEILING_PER_SECOND = 4096L * 1000;
    /** Yitter defaults: SeqBitLength 6, sequences MinSeqNumber 5 .. 63 per millisecond (0-4 are reserved). */
    public static final long YITTER_DEFAULTS_CEILING_PER_SECOND = (63 - 5 + 1) * 1000L;
    /** Yitter with SeqBitLength 12: sequences 5 .. 4095 per millisecond. */
    public static final long YITTER_SEQ12_CEILING_PER_SECOND = (4095 - 5 + 1) * 1000L;
    /** CosId MillisecondSnowflakeId defaults: 12-bit sequence, 4096 per millisecond when saturated. */
    public static final long COSID_CEILING_PER_SECOND = 4096L * 1000;

    static final int MACHINE_ID = 5;

    @State(Scope.Benchmark)
    public static class HutoolState {
        Snowflake snowflake;

        @Setup(Level.Trial)
        public void build() {
            snowflake = new Snowflake(MACHINE_ID, 0); // workerId, dataCenterId; the default epoch and clock
        }
    }

    @State(Scope.Benchmark)
    public static class YitterDefaultsState {
        DefaultIdGenerator generator;

        @Setup(Level.Trial)
        public void build() {
            generator = new DefaultIdGenerator(new IdGeneratorOptions((short) MACHINE_ID));
        }
    }

    @State(Scope.Benchmark)
    public static class YitterSeq12State {
        DefaultIdGenerator generator;

        @Setup(Level.Trial)
        public void build() {
            IdGeneratorOptions options = new IdGeneratorOptions((short) MACHINE_ID);
            options.SeqBitLength = 12;
            generator = new DefaultIdGenerator(options);
        }
    }

    @State(Scope.Benchmark)
    public static class CosIdState {
        MillisecondSnowflakeId snowflake;

        @Setup(Level.Trial)
        public void build() {
            snowflake = new MillisecondSnowflakeId(MACHINE_ID); // CosId epoch, 41/10/12 bits
        }
    }

    @Benchmark
    public long hutool(HutoolState state) {
        return state.snowflake.nextId();
    }

    @Benchmark
    public long yitterDefaults(YitterDefaultsState state) {
        return state.generator.newLong();
    }

    @Benchmark
    public long yitterSeq12(YitterSeq12State state) {
        return state.generator.newLong();
    }

    @Benchmark
    public long cosid(CosIdState state) {
        return state.snowflake.generate();
    }

    @Benchmark
    public UUID uuid() {
        return UUID.randomUUID();
    }
}
