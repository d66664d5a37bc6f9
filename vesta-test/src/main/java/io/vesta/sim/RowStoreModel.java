package io.vesta.sim;

import io.vesta.machine.LeaseClaim;
import io.vesta.machine.LeaseClaimWalk;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdRange;

import java.io.IOException;
import java.util.List;
import java.util.TreeMap;

/**
 * A model of the database table of vesta-jdbc's {@code DbMachineIdProvider}: one row per machine ID, {@code (owner,
 * lease_expiry, high_water, generation)}, read with a plain {@code SELECT} and written only by statements that each
 * commit atomically (auto-commit; a block's rows in one transaction):
 * <ul>
 * <li>a claim inserts the rows that do not exist (a unique violation when another node inserted first) and takes
 *     over those that do with {@code UPDATE ... SET generation = g + 1 ... WHERE generation = g AND lease_expiry = e
 *     AND high_water = h}, the values it read (with {@link Defect#TAKEOVER_FENCED_BY_GENERATION_ONLY}, on {@code g}
 *     alone, as before commit ea8603c);</li>
 * <li>a renewal and a release update the rows {@code WHERE generation = g}, the generation the node claimed
 *     under.</li>
 * </ul>
 * A database does not lose committed rows, so this store loses nothing; what it has of faults is the network's.
 */
final class RowStoreModel {

    /** A row as the table holds it; {@code tenure} is the simulation's record of the claim that wrote it. */
    record Row(long machineId, String owner, long leaseExpiry, long highWater, long generation, Tenure tenure)
            implements ModelBackend.Leased<Row> {

        @Override
        public Row written(long expiry, long highWater) {
            return new Row(machineId, owner, expiry, highWater, generation, tenure);
        }
    }

    /** The fence of a node's writes: the generation of each row of its block, and its tenure. */
    record Fence(long[] generations, Tenure tenure) implements ModelBackend.Fenced {
        @Override
        public String toString() {
            return "generations " + java.util.Arrays.toString(generations) + " of tenure " + tenure.number;
        }
    }

    private final Simulation sim;
    private final TreeMap<Long, Row> rows = new TreeMap<>();

    RowStoreModel(Simulation sim) {
        this.sim = sim;
    }

    Backend backend(Simulation.Run run) {
        return new Backend(sim, run);
    }

    private boolean matches(Row read, Row now) {
        if (read == null || now == null) {
            return read == now;
        }
        if (sim.scenario.defect() == Defect.TAKEOVER_FENCED_BY_GENERATION_ONLY) {
            return read.generation() == now.generation();
        }
        return read.generation() == now.generation() && read.leaseExpiry() == now.leaseExpiry()
                && read.highWater() == now.highWater();
    }

    /** {@code UPDATE ... WHERE machine_id IN block AND generation = g}: all of the block's rows or none. */
    private boolean write(MachineIdBlock block, Fence fence, long expiry, long highWater) {
        return ModelBackend.writeBlock(rows, block, fence, (row, i, f) -> row.generation() == f.generations()[i],
                expiry, highWater);
    }

    final class Backend extends ModelBackend<Fence> {

        Backend(Simulation sim, Simulation.Run run) {
            super(sim, run);
        }

        @Override
        public String store() {
            return "table sim_machine";
        }

        @Override
        public LeaseClaim<Fence> claim(MachineIdRange range, int blockSize, boolean startUp) throws Exception {
            return claim(range, blockSize, startUp, () -> call("select", () -> new TreeMap<>(rows)),
                    snapshot -> snapshot, (snapshot, first, block, now) -> takeBlock(first, block, now));
        }

        private LeaseClaimWalk.Attempt<LeaseClaim<Fence>> takeBlock(long first, List<Row> read, long now)
                throws IOException {
            long expiry = now + lease();
            long[] generations = new long[read.size()];
            for (int i = 0; i < read.size(); i++) {
                Row row = read.get(i);
                generations[i] = row == null ? 1 : row.generation() + 1;
            }
            Previous previous = Previous.of(read, run.node.owner);
            Long notBefore = previous.mark();
            String takenFrom = previous.takenFrom();
            long highWater = notBefore == null ? expiry : Math.max(notBefore, expiry);
            MachineIdBlock block = new MachineIdBlock(first, read.size());
            return call("take " + block, () -> {
                for (int i = 0; i < read.size(); i++) {
                    if (!matches(read.get(i), rows.get(first + i))) {
                        return LeaseClaimWalk.Attempt.<LeaseClaim<Fence>>lost();
                    }
                }
                Tenure tenure = sim.checker.begin(block, run.node.owner, run.label,
                        sim.scheduler.now() - Simulation.START, notBefore, highWater);
                for (int i = 0; i < read.size(); i++) {
                    rows.put(first + i, new Row(first + i, run.node.owner, expiry, highWater, generations[i], tenure));
                }
                return LeaseClaimWalk.Attempt.taken(new LeaseClaim<>(block, expiry, notBefore, takenFrom,
                        new Fence(generations, tenure)));
            });
        }

        @Override
        public Renewal<Fence> renew(LeaseClaim<Fence> held, long expiry, long highWater) throws Exception {
            boolean renewed = call("renew " + held.block() + " to " + expiry,
                    () -> write(held.block(), held.fence(), expiry, highWater));
            return renewed ? Renewal.renewed(held.fence()) : Renewal.lost("the row was taken over");
        }

        @Override
        public boolean release(LeaseClaim<Fence> held, long now, long highWater) throws Exception {
            return call("release " + held.block() + " at " + now,
                    () -> write(held.block(), held.fence(), now, highWater));
        }
    }
}
