package io.vesta.sim;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Judges every ID a simulation issued against the store's history of who held which machine ID when. A run fails
 * when
 * <ul>
 * <li>an ID is issued twice;</li>
 * <li>an ID carries a machine ID outside the tenure its node issued under, a time at or after that tenure's lease end
 *     (the highest high water of its writes that had landed when the ID was issued), or a time before the high water
 *     the tenure took over (the previous holder issued only before it);</li>
 * <li>an ID of a tenure carries a time at or after that of an ID of a later tenure of the same machine ID: whoever
 *     holds a machine ID next must start after everything its previous holders issued, or could have.</li>
 * </ul>
 */
public final class Checker {

    private static final int MAX_FAILURES = 10;

    private final Map<Long, String> issued = new HashMap<>();
    private final Map<Long, List<Tenure>> byMachine = new TreeMap<>();
    private final List<Tenure> tenures = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    /** A claim of {@code run} landed: a new tenure. */
    Tenure begin(io.vesta.machine.MachineIdBlock block, String owner, String run, long now, Long notBefore,
            long highWater) {
        Tenure tenure = new Tenure(tenures.size() + 1, block, owner, run, now, notBefore, highWater);
        tenures.add(tenure);
        for (long id = block.first(); id <= block.last(); id++) {
            byMachine.computeIfAbsent(id, k -> new ArrayList<>()).add(tenure);
        }
        return tenure;
    }

    /** {@code run} issued {@code id} of {@code machine} at {@code idTime} under {@code tenure}, at true time now. */
    void issued(String run, Tenure tenure, long id, long machine, long idTime, long now) {
        String what = run + " at +" + now + ": ID " + id + " (machine " + machine + ", time " + idTime + ")";
        String before = issued.putIfAbsent(id, what);
        if (before != null) {
            fail("ID issued twice: " + before + ", and " + what);
        }
        if (tenure == null || machine < tenure.block.first() || machine > tenure.block.last()) {
            fail(what + " under no tenure of its node holding that machine ID (" + tenure + ")");
            return;
        }
        if (idTime >= tenure.leaseEnd) {
            fail(what + " after its holder's lease ended: " + tenure);
        }
        if (tenure.notBefore != null && idTime < tenure.notBefore) {
            fail(what + " before the high water its tenure took over: " + tenure);
        }
        tenure.ids++;
        tenure.minIdTime = Math.min(tenure.minIdTime, idTime);
        tenure.maxIdTime = Math.max(tenure.maxIdTime, idTime);
    }

    /** The checks across tenures, once the run is over. */
    void finish() {
        for (Map.Entry<Long, List<Tenure>> entry : byMachine.entrySet()) {
            Tenure highest = null;
            for (Tenure tenure : entry.getValue()) {
                if (tenure.ids == 0) {
                    continue;
                }
                if (highest != null && tenure.minIdTime <= highest.maxIdTime) {
                    fail("machine ID " + entry.getKey() + ": " + tenure.run + " issued from time " + tenure.minIdTime
                            + " under " + tenure + ", not after " + highest.run + "'s IDs up to " + highest.maxIdTime
                            + " under the earlier " + highest);
                }
                if (highest == null || tenure.maxIdTime > highest.maxIdTime) {
                    highest = tenure;
                }
            }
        }
    }

    void fail(String failure) {
        if (failures.size() < MAX_FAILURES) {
            failures.add(failure);
        }
    }

    List<String> failures() {
        return failures;
    }

    int ids() {
        return issued.size();
    }

    List<Tenure> tenures() {
        return tenures;
    }
}
