package io.vesta.benchmarks;

import io.vesta.EmbeddedIdService;
import io.vesta.IdType;
import io.vesta.layout.IdLayout;
import io.vesta.sequence.SequencerStrategy;
import io.vesta.time.TimeSource;

import java.time.Instant;
import java.util.Arrays;

/**
 * Explains a real-clock throughput below the ceiling. Runs one generator flat out on the real clock from one
 * thread, counts the IDs it issued in each time unit (full, partly filled, or empty: a unit the thread slept
 * through), then measures how late {@code TimeSource.system().sleepUntil(next millisecond)} returns.
 * <pre>
 * java -cp vesta-benchmarks/target/benchmarks.jar io.vesta.benchmarks.RealClockProbe MIN_GRANULARITY LOCK 5
 * </pre>
 */
public final class RealClockProbe {

    private RealClockProbe() {
    }

    public static void main(String[] args) {
        IdType type = args.length > 0 ? IdType.valueOf(args[0]) : IdType.MIN_GRANULARITY;
        SequencerStrategy sequencer = args.length > 1 ? SequencerStrategy.valueOf(args[1]) : EmbeddedIdService.DEFAULT_SEQUENCER;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        IdLayout layout = IdLayout.of(type);
        EmbeddedIdService service = EmbeddedIdService.builder().type(type).machineId(5).sequencer(sequencer).build();

        long warmUntil = System.nanoTime() + 3_000_000_000L;
        while (System.nanoTime() < warmUntil) {
            service.genId();
        }
        long issuedBefore = service.idsIssued();
        long waitsBefore = service.exhaustedWaits();
        int[] perUnit = new int[(int) (seconds * 1000 / layout.unitMillis()) + 2];
        long firstUnit = -1;
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            long id = service.genId();
            long unit = (id >>> layout.timeShift()) & layout.maxTime();
            if (firstUnit < 0) {
                firstUnit = unit;
            }
            perUnit[(int) Math.min(perUnit.length - 1, unit - firstUnit)]++;
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        long issued = service.idsIssued() - issuedBefore;
        int last = perUnit.length - 1;
        while (last > 0 && perUnit[last] == 0) {
            last--;
        }
        int full = 0;
        int partial = 0;
        int empty = 0;
        for (int i = 1; i < last; i++) { // the first and last units are cut by the window
            if (perUnit[i] == 0) {
                empty++;
            } else if (perUnit[i] <= layout.maxSeq()) {
                partial++;
            } else {
                full++;
            }
        }
        System.out.printf("%s %s, 1 thread, %d s: %.0f IDs/s = %.4f of the ceiling; units inside the window: "
                        + "%d full, %d partly filled, %d empty; %d waits for a new unit%n",
                type, sequencer, seconds, issued / elapsed, issued / elapsed / layout.ceilingPerSecond(),
                full, partial, empty, service.exhaustedWaits() - waitsBefore);

        TimeSource clock = TimeSource.system();
        int samples = 3000;
        long[] lateMicros = new long[samples];
        for (int i = 0; i < samples; i++) {
            long target = System.currentTimeMillis() + 1;
            clock.sleepUntil(target);
            Instant now = Instant.now();
            lateMicros[i] = (now.toEpochMilli() - target) * 1000 + now.getNano() % 1_000_000 / 1000;
        }
        Arrays.sort(lateMicros);
        System.out.printf("sleepUntil(next ms) returned late by (us): p50 %d, p90 %d, p99 %d, p99.9 %d, max %d; "
                        + "1 ms or more late: %d of %d%n",
                lateMicros[samples / 2], lateMicros[samples * 9 / 10], lateMicros[samples * 99 / 100],
                lateMicros[samples * 999 / 1000], lateMicros[samples - 1],
                Arrays.stream(lateMicros).filter(late -> late >= 1000).count(), samples);
        service.close();
    }
}
