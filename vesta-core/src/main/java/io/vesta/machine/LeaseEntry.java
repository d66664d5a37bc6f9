package io.vesta.machine;

import java.util.ArrayList;
import java.util.List;

/**
 * A machine ID's lease as the key-value stores keep it (a Redis hash field, an etcd key): the value
 * {@code generation|leaseExpiry|highWater|token|owner}, times in Unix ms, the token a random UUID per claim that fences
 * its holder's writes.
 */
public record LeaseEntry(long machineId, long generation, long leaseExpiry, long highWater, String token, String owner)
        implements RecordLeaseBackend.Record {

    /** The value the store keeps. */
    public String encode() {
        return generation + "|" + leaseExpiry + "|" + highWater + "|" + token + "|" + owner;
    }

    /** The lease {@code value} holds for {@code machineId}; null when it is no lease. */
    public static LeaseEntry parse(long machineId, String value) {
        String[] parts = value.split("\\|", 5);
        if (parts.length != 5) {
            return null;
        }
        try {
            return new LeaseEntry(machineId, Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                    Long.parseLong(parts[2]), parts[3], parts[4]);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The entries of {@code block} as its holder writes them under {@code token} and {@code generation}. */
    public static List<LeaseEntry> block(MachineIdBlock block, long generation, long expiry, long highWater,
            String token, String owner) {
        List<LeaseEntry> entries = new ArrayList<>(block.size());
        for (long id = block.first(); id <= block.last(); id++) {
            entries.add(new LeaseEntry(id, generation, expiry, highWater, token, owner));
        }
        return entries;
    }

    /** This entry as an operator's end leaves it: expiry {@code now}, the next generation, {@code token}. */
    public LeaseEntry ended(long now, String token) {
        return new LeaseEntry(machineId, generation + 1, now, highWater, token, owner);
    }
}
