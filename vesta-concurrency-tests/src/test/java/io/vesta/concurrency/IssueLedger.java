package io.vesta.concurrency;

import io.vesta.machine.LeasedMachineIdProvider;
import io.vesta.machine.MachineIdGrant;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the issuing threads of a scenario did, as a generator does it: read the clock, then the grant's lease, and issue
 * under the grant when the lease is held at that reading and the reading is after the grant's high water. An ID is a
 * block and a millisecond here; the sequence within a millisecond plays no part in whether two nodes overlap.
 */
final class IssueLedger {

    /** An ID issued: by whom, under which grant, its block's first machine ID and its time on the scenario's clock. */
    record Issued(String owner, long grant, long block, long at) {
    }

    private final List<Issued> issued = new CopyOnWriteArrayList<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closeReturned = new AtomicBoolean();

    /** Said by the thread that called close(), once it returned. */
    void closeReturned() {
        closeReturned.set(true);
    }

    /** Whether close() has returned; read before a step whose outcome close() must already bound. */
    boolean hasCloseReturned() {
        return closeReturned.get();
    }

    void violation(String what) {
        violations.add(what);
    }

    /** One attempt of a generator of {@code owner} to issue now. */
    void issue(String owner, LeasedMachineIdProvider<?> provider, StepClock clock) {
        boolean afterClose = closeReturned.get();
        long now = clock.currentTimeMillis();
        Optional<MachineIdGrant> current = provider.grant();
        if (current.isEmpty()) {
            return;
        }
        MachineIdGrant grant = current.get();
        if (!grant.lease().isHeldAt(now) || grant.notBefore().orElse(Long.MIN_VALUE) >= now) {
            return;
        }
        if (afterClose) {
            violation("'" + owner + "' found grant " + grant.number() + " (" + grant.block().describe()
                    + ") held at " + now + " after close() returned; lease until " + grant.lease().heldUntil());
        }
        issued.add(new Issued(owner, grant.number(), grant.block().first(), now));
    }

    List<Issued> issued() {
        return List.copyOf(issued);
    }

    /**
     * Fails with every violation and the scenario's story when the threads saw one, or when two owners issued under one
     * block at overlapping times, or an ID of a block is not below the high water its row ends with (whoever takes the
     * block next starts after it), or below the high water of a takeover that ended its holder's tenure. Each scenario
     * gives an owner at most one tenure of a block.
     */
    void check(InMemoryLeaseStore store, RecordingLogger... logs) {
        List<String> found = new CopyOnWriteArrayList<>(violations);
        List<Issued> all = issued();
        for (Issued a : all) {
            InMemoryLeaseStore.Row row = store.row(a.block());
            if (row == null || a.at() >= row.highWater()) {
                found.add(a + " is not below the high water the store ends with: " + row);
            }
            for (InMemoryLeaseStore.Takeover t : store.takeovers()) {
                if (t.block() == a.block() && t.from().equals(a.owner()) && a.at() >= t.notBefore()) {
                    found.add(a + " is not below the high water " + t.notBefore() + " its block was taken over with"
                            + " by '" + t.to() + "'");
                }
            }
            for (Issued b : all) {
                if (a.block() == b.block() && !a.owner().equals(b.owner())
                        && overlaps(all, a.owner(), b.owner(), a.block())) {
                    found.add("'" + a.owner() + "' and '" + b.owner() + "' issued under block " + a.block()
                            + " at overlapping times: " + all);
                }
            }
        }
        found.addAll(store.misuse());
        if (!found.isEmpty()) {
            StringBuilder story = new StringBuilder(String.join("\n", found.stream().distinct().toList()));
            story.append("\nissued: ").append(all).append("\nreleases: ").append(store.releases())
                    .append("\ntakeovers: ").append(store.takeovers());
            for (RecordingLogger log : logs) {
                story.append("\nlog: ").append(String.join("\n     ", log.lines()));
            }
            throw new AssertionError(story.toString());
        }
    }

    private static boolean overlaps(List<Issued> all, String x, String y, long block) {
        long xMin = Long.MAX_VALUE;
        long xMax = Long.MIN_VALUE;
        long yMin = Long.MAX_VALUE;
        long yMax = Long.MIN_VALUE;
        for (Issued i : all) {
            if (i.block() == block && i.owner().equals(x)) {
                xMin = Math.min(xMin, i.at());
                xMax = Math.max(xMax, i.at());
            } else if (i.block() == block && i.owner().equals(y)) {
                yMin = Math.min(yMin, i.at());
                yMax = Math.max(yMax, i.at());
            }
        }
        return xMin <= yMax && yMin <= xMax;
    }
}
