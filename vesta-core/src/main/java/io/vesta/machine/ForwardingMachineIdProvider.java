package io.vesta.machine;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A leased provider under a store's own name ({@code DbMachineIdProvider}, {@code RedisMachineIdProvider}): everything
 * it does is its {@link LeasedMachineIdProvider}'s, over the store's {@link LeaseBackend}.
 */
public abstract class ForwardingMachineIdProvider implements MachineIdProvider {

    private final LeasedMachineIdProvider<?> engine;

    protected ForwardingMachineIdProvider(LeasedMachineIdProvider<?> engine) {
        this.engine = engine;
    }

    /** The provider that runs the lease. */
    protected LeasedMachineIdProvider<?> engine() {
        return engine;
    }

    @Override
    public long acquire(MachineIdRange range, int blockSize) {
        return engine.acquire(range, blockSize);
    }

    @Override
    public MachineIdLease lease() {
        return engine.lease();
    }

    @Override
    public Optional<MachineIdGrant> grant() {
        return engine.grant();
    }

    @Override
    public void onRegain(Runnable listener) {
        engine.onRegain(listener);
    }

    @Override
    public OptionalLong notBefore() {
        return engine.notBefore();
    }

    @Override
    public Optional<MachineIdLeases> leases() {
        return engine.leases();
    }

    @Override
    public String describe() {
        return engine.describe();
    }

    /** See {@link LeasedMachineIdProvider#close()}. */
    @Override
    public void close() {
        engine.close();
    }

    /** The longest {@link #close()} takes. */
    public Duration closeTimeout() {
        return engine.closeTimeout();
    }

    /** Who this node is. */
    public String owner() {
        return engine.settings().owner();
    }

    /** How long a block stays this node's after a renewal. */
    public Duration leaseDuration() {
        return engine.settings().lease();
    }

    @Override
    public String toString() {
        return engine.toString();
    }
}
