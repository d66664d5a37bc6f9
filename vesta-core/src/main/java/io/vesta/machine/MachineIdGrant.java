package io.vesta.machine;

import java.util.OptionalLong;

/**
 * One acquisition of a leased provider: the block it holds, the lease the generator reads before every ID of that
 * block, and the time the block's IDs must come after. A provider that loses its block and claims another by itself
 * ({@link MachineIdProvider#grant()}) makes a new grant with a higher {@code number} and a lease of its own, so a
 * generator built on an earlier grant never sees the later lease held: it can never issue under the old block again.
 *
 * @param number    1 for the block {@link MachineIdProvider#acquire acquire} returned, one more for each regain
 * @param block     the machine IDs held
 * @param lease     the lease on exactly this block, revoked for good when it is lost
 * @param notBefore a wall-clock time (Unix ms) the block's IDs must come after: the mark of whoever held it before
 */
public record MachineIdGrant(long number, MachineIdBlock block, MachineIdLease lease, OptionalLong notBefore) {
}
