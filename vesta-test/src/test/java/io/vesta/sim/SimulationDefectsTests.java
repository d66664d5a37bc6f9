package io.vesta.sim;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulation can fail: with a known defect switched on in a model store, some seed among the first thousand
 * fails; with it off, none of those seeds does.
 */
class SimulationDefectsTests {

    private static final int SEEDS = 1_000;

    @Test
    void findsATakeoverFencedByTheGenerationAlone() {
        assertFoundAndAbsentWithoutIt(Store.ROW, Defect.TAKEOVER_FENCED_BY_GENERATION_ONLY);
    }

    @Test
    void findsASettleRuleThatTakesOffTheUptimeRoundedUp() {
        assertFoundAndAbsentWithoutIt(Store.REDIS, Defect.SETTLE_WITH_ROUNDED_UP_UPTIME);
    }

    @Test
    void findsARenewalOfAnEntryRestoredFromASnapshot() {
        assertFoundAndAbsentWithoutIt(Store.REDIS, Defect.RENEWAL_FENCED_BY_TOKEN_ONLY);
    }

    @Test
    void findsAZooKeeperReportThatRewritesAnotherProcesssNode() {
        assertFoundAndAbsentWithoutIt(Store.ZOOKEEPER, Defect.ZOOKEEPER_REWRITE_OF_ANOTHER_PROCESS_NODE);
    }

    @Test
    void findsAnEtcdRenewalThatAdoptsTheKeysRevisionWithoutCheckingTheToken() {
        assertFoundAndAbsentWithoutIt(Store.ETCD, Defect.ETCD_ADOPTS_WITHOUT_TOKEN_CHECK);
    }

    @Test
    void findsAnEtcdClaimThatDoesNotSettleAfterARestore() {
        assertFoundAndAbsentWithoutIt(Store.ETCD, Defect.ETCD_NO_SETTLE_AFTER_RESTORE);
    }

    @Test
    void findsAnEtcdRenewalThatIgnoresTheClusterId() {
        assertFoundAndAbsentWithoutIt(Store.ETCD, Defect.ETCD_RENEWAL_IGNORES_CLUSTER_ID);
    }

    /** The rule of the first etcd protocol, that a prefix with neither mark nor lease key needs no settle. */
    @Test
    void findsAnEtcdClaimThatTakesAPrefixRestoredEmptyForANewOne() {
        assertFoundAndAbsentWithoutIt(Store.ETCD, Defect.ETCD_EMPTY_PREFIX_WITHOUT_SETTLE);
    }

    /**
     * The other rule of the first etcd protocol, a claim that checks the cluster of its read but not of its
     * transaction, fails a seed too rarely for the sweep above: its first failing seed, which passes without it. A
     * change to what the etcd model draws moves that seed; find the new one with a sweep over ETCD seeds.
     */
    @Test
    void findsAnEtcdClaimAnsweredByAnotherClusterThanItRead() {
        Simulation.Result found = Simulation.run(
                Simulation.Scenario.parse("3476:ETCD:ETCD_CLAIM_IGNORES_CLUSTER_CHANGE"));
        assertThat(found.failures()).as("failures of %s", found.scenario()).isNotEmpty();
        System.out.println(Defect.ETCD_CLAIM_IGNORES_CLUSTER_CHANGE + " found by "
                + SimulationSeedsTests.report(found));
        Simulation.Result without = Simulation.run(Simulation.Scenario.parse("3476:ETCD:NONE"));
        assertThat(without.failures()).as("%s", without.scenario()).isEmpty();
    }

    private static void assertFoundAndAbsentWithoutIt(Store store, Defect defect) {
        long found = -1;
        for (long seed = 0; seed < SEEDS && found < 0; seed++) {
            Simulation.Result result = Simulation.run(new Simulation.Scenario(seed, store, defect));
            if (result.failed()) {
                found = seed;
                System.out.println(defect + " found by " + SimulationSeedsTests.report(result));
            }
        }
        assertThat(found).as("the first of %s seeds on %s to find %s", SEEDS, store, defect).isNotNegative();
        for (long seed = 0; seed <= found; seed++) {
            Simulation.Result result = Simulation.run(new Simulation.Scenario(seed, store, Defect.NONE));
            assertThat(result.failures()).as("%s", result.scenario()).isEmpty();
        }
    }
}
