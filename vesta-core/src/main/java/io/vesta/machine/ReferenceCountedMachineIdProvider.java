package io.vesta.machine;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * One machine ID for several generators: acquired from the real provider once (a database or ZooKeeper
 * provider holds one lease, not one per generator), handed to every generator, and released when the last
 * of them closes. The lease is the real provider's, so every generator stops issuing when it is lost.
 * A central server runs its REST and central-server generators on one of these.
 */
public final class ReferenceCountedMachineIdProvider implements MachineIdProvider {

    private final MachineIdProvider provider;
    private final int users;
    private Long machineId;
    private MachineIdRange range;
    private int blockSize;
    private int closes;

    /**
     * @param provider the provider that holds the machine ID; closed when the last user closes
     * @param users how many generators share it, each of which closes it once
     */
    public ReferenceCountedMachineIdProvider(MachineIdProvider provider, int users) {
        if (users < 1) {
            throw new IllegalArgumentException("users must be at least 1, was " + users);
        }
        this.provider = provider;
        this.users = users;
    }

    /**
     * The real provider's block, acquired on the first call; later calls get the same block.
     * @throws IllegalArgumentException when a later call asks for another range or block size than the first
     */
    @Override
    public synchronized long acquire(MachineIdRange range, int blockSize) {
        if (machineId == null) {
            machineId = provider.acquire(range, blockSize);
            this.range = range;
            this.blockSize = blockSize;
        } else if (!range.equals(this.range) || blockSize != this.blockSize) {
            throw new IllegalArgumentException("a shared machine ID was acquired in range " + this.range + " with block size "
                    + this.blockSize + ", not in range " + range + " with block size " + blockSize);
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

    /** The real provider's grant: every generator moves to the block the real provider claimed after a loss. */
    @Override
    public Optional<MachineIdGrant> grant() {
        return provider.grant();
    }

    @Override
    public void onRegain(Runnable listener) {
        provider.onRegain(listener);
    }

    @Override
    public Optional<MachineIdLeases> leases() {
        return provider.leases();
    }

    /** Counts one user out; the last one closes the real provider, which releases the machine ID. */
    @Override
    public synchronized void close() {
        if (++closes == users) {
            provider.close();
        }
    }
}
