package io.vesta.autoconfigure.server;

import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;

import java.util.OptionalLong;

/**
 * One machine ID for several generators: acquired from the real provider once (a database or ZooKeeper
 * provider holds one lease, not one per generator), handed to every generator, and released when the last
 * of them closes. The lease is the real provider's, so every generator stops issuing when it is lost.
 */
final class SharedMachineIdProvider implements MachineIdProvider {

    private final MachineIdProvider provider;
    private final int users;
    private Long machineId;
    private MachineIdRange range;
    private int closes;

    SharedMachineIdProvider(MachineIdProvider provider, int users) {
        this.provider = provider;
        this.users = users;
    }

    @Override
    public synchronized long acquire(MachineIdRange range) {
        if (machineId == null) {
            machineId = provider.acquire(range);
            this.range = range;
        } else if (!range.equals(this.range)) {
            throw new IllegalArgumentException("a shared machine ID was acquired in range " + this.range + ", not " + range);
        }
        return machineId;
    }

    @Override
    public String describe() {
        return provider.describe();
    }

    @Override
    public MachineIdLease lease() {
        return provider.lease();
    }

    @Override
    public OptionalLong notBefore() {
        return provider.notBefore();
    }

    @Override
    public synchronized void close() {
        if (++closes == users) {
            provider.close();
        }
    }
}
