package io.vesta.sim;

import io.vesta.machine.MachineIdBlock;

/**
 * One holding of a block as the store saw it: from the claim that landed to whatever ended it. The ground truth the
 * {@link Checker} judges IDs by: a model store records a tenure when a claim lands, and every later write of the holder
 * that lands, whether the node ever hears of it or not, and whether the store later loses it or not.
 */
public final class Tenure {

    final int number;
    final MachineIdBlock block;
    final String owner;
    /** The run of the node that claimed it: {@code "n1#2"}, node 1's second run. */
    final String run;
    final long landedAt;
    /** The high water the claim took over (its IDs start after it), or null. */
    final Long notBefore;
    /** The highest high water of a write of this tenure that landed: every ID of it must carry an earlier time. */
    long leaseEnd;
    long ids;
    long minIdTime = Long.MAX_VALUE;
    long maxIdTime = Long.MIN_VALUE;

    Tenure(int number, MachineIdBlock block, String owner, String run, long landedAt, Long notBefore, long highWater) {
        this.number = number;
        this.block = block;
        this.owner = owner;
        this.run = run;
        this.landedAt = landedAt;
        this.notBefore = notBefore;
        this.leaseEnd = highWater;
    }

    /** A write of this tenure carrying {@code highWater} landed in the store. */
    void landed(long highWater) {
        leaseEnd = Math.max(leaseEnd, highWater);
    }

    @Override
    public String toString() {
        return "tenure " + number + " (" + block.describe() + ", " + run + ", landed at +" + landedAt
                + (notBefore != null ? ", after " + notBefore : "") + ", lease end " + leaseEnd + ")";
    }
}
