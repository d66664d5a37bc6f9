package io.vesta.sim;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the simulation over many seeds, each against the store {@code seed mod 4} picks. {@code -Dvesta.sim.seeds=N}
 * sets how many (10,000 by default, about two minutes), {@code -Dvesta.sim.firstSeed=S} where they start. A failing
 * seed prints itself and the command that replays it.
 */
class SimulationSeedsTests {

    static final int SEEDS = Integer.getInteger("vesta.sim.seeds", 10_000);
    static final long FIRST_SEED = Long.getLong("vesta.sim.firstSeed", 0L);

    static String replayCommand(Simulation.Scenario scenario) {
        return "./mvnw -B -pl vesta-core,vesta-test -am verify -Dtest=SimulationSeedsTests#replay"
                + " -Dsurefire.failIfNoSpecifiedTests=false -Dvesta.sim.replay=" + scenario;
    }

    static String report(Simulation.Result result) {
        return "Seed " + result.scenario() + " failed:\n  " + String.join("\n  ", result.failures())
                + "\nReplay it with: " + replayCommand(result.scenario());
    }

    @Test
    void noSeedIssuesAnIdTwiceOrAfterItsLeaseEnded() {
        long started = System.nanoTime();
        List<String> failures = new ArrayList<>();
        Map<Store, long[]> figures = new EnumMap<>(Store.class);
        for (long seed = FIRST_SEED; seed < FIRST_SEED + SEEDS; seed++) {
            Simulation.Result result = Simulation.run(Simulation.Scenario.forSeed(seed));
            long[] f = figures.computeIfAbsent(result.scenario().store(), s -> new long[4]);
            f[0]++;
            f[1] += result.ids();
            f[2] += result.tenures();
            f[3] += result.events();
            if (result.failed()) {
                String report = report(result);
                System.out.println(report);
                failures.add(report);
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        figures.forEach((store, f) -> System.out.println("Simulated " + f[0] + " seeds on " + store + ": " + f[1]
                + " IDs, " + f[2] + " tenures, " + f[3] + " events"));
        System.out.println("Simulated seeds " + FIRST_SEED + ".." + (FIRST_SEED + SEEDS - 1) + " in " + millis + " ms");
        assertThat(failures).as("failing seeds").isEmpty();
    }

    /**
     * The ZooKeeper model takes the write path of a report whose earlier answer was lost: it reads the node, finds its
     * own mark, and writes again at the version read; and a process that hung beside its successor is refused.
     */
    @Test
    void zooKeeperSeedsReportAgainAfterALostAnswerAndRefuseAHungProcess() {
        int[] lines = traceLines(Store.ZOOKEEPER, 300, ".* report again \\S+ at version \\d+ until \\d+ -> \\d+",
                ".* report: \\S+ carries \\S+'s mark, not this process's");
        System.out.println("ZooKeeper seeds 0..299: " + lines[0] + " reports again at the version read, " + lines[1]
                + " reports refused on another process's mark");
        assertThat(lines[0]).as("reports written again at the version read").isPositive();
        assertThat(lines[1]).as("reports refused on another process's mark").isPositive();
    }

    /**
     * The etcd model takes the protocol's two recoveries: a renewal or release whose compare failed finds its own token
     * in the keys (a write whose reply was lost landed) and adopts their mod revisions, and a claim settles after the
     * cluster was restored from a snapshot (its store mark names another cluster).
     */
    @Test
    void etcdSeedsAdoptTheirOwnLandedWriteAndSettleAfterARestore() {
        int[] lines = traceLines(Store.ETCD, 200,
                ".* the keys still carry token \\S+, a write of ours landed: adopts .*",
                ".* settles until \\d+: the store mark names cluster \\p{XDigit}+, not \\p{XDigit}+");
        System.out.println("etcd seeds 0..199: " + lines[0] + " writes retried on the revision of their own landed"
                + " write, " + lines[1] + " claims settled after a restore");
        assertThat(lines[0]).as("writes retried on the revision of their own landed write").isPositive();
        assertThat(lines[1]).as("claims settled after a restore").isPositive();
    }

    /** Runs seeds 0 to {@code seeds - 1} on {@code store}, each passing, and counts the trace lines of each pattern. */
    private static int[] traceLines(Store store, int seeds, String... patterns) {
        int[] counts = new int[patterns.length];
        for (long seed = 0; seed < seeds; seed++) {
            Simulation.Result result = Simulation.run(new Simulation.Scenario(seed, store, Defect.NONE));
            assertThat(result.failures()).as("%s", result.scenario()).isEmpty();
            for (String line : result.trace().split("\n")) {
                for (int i = 0; i < patterns.length; i++) {
                    if (line.matches(patterns[i])) {
                        counts[i]++;
                    }
                }
            }
        }
        return counts;
    }

    /** {@code -Dvesta.sim.replay=seed:STORE:DEFECT}: runs that one scenario again and prints its trace. */
    @Test
    @EnabledIfSystemProperty(named = "vesta.sim.replay", matches = ".+")
    void replay() {
        Simulation.Result result = Simulation.run(Simulation.Scenario.parse(System.getProperty("vesta.sim.replay")));
        System.out.println(result.trace());
        assertThat(result.failures()).as(result.failed() ? report(result) : "failures").isEmpty();
    }

    @Test
    void aSeedReplaysToTheSameTrace() {
        for (Simulation.Scenario scenario : List.of(Simulation.Scenario.parse("7:ROW:NONE"),
                Simulation.Scenario.parse("8:REDIS:NONE"), Simulation.Scenario.parse("9:ZOOKEEPER:NONE"),
                Simulation.Scenario.parse("11:ETCD:NONE"),
                Simulation.Scenario.parse("99:ROW:TAKEOVER_FENCED_BY_GENERATION_ONLY"))) {
            Simulation.Result first = Simulation.run(scenario);
            Simulation.Result second = Simulation.run(scenario);
            assertThat(first.events()).as("events of %s", scenario).isGreaterThan(100);
            assertThat(first.ids()).as("IDs of %s", scenario).isGreaterThan(50);
            assertThat(second.trace()).as("trace of %s", scenario).isEqualTo(first.trace());
            assertThat(second.failures()).isEqualTo(first.failures());
        }
        assertThat(Simulation.run(Simulation.Scenario.parse("7:ROW:NONE")).trace())
                .isNotEqualTo(Simulation.run(Simulation.Scenario.parse("10:ROW:NONE")).trace());
    }
}
