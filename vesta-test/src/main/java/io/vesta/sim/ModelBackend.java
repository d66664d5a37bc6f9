package io.vesta.sim;

import io.vesta.machine.LeaseBackend;
import io.vesta.machine.LeaseClaim;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdUnavailableException;

import java.io.IOException;
import java.time.Duration;
import java.util.function.LongPredicate;

/**
 * One node's client of a model store: a {@link LeaseBackend} whose every store operation is a round trip through the
 * simulated network ({@link Simulation#call}): a request delay, the operation applied atomically at the store, a reply
 * delay, and the faults a network has (a request lost, a reply lost after the write landed, a request delivered
 * twice).
 *
 * @param <F> the fence of the node's writes
 */
abstract class ModelBackend<F> implements LeaseBackend<F> {

    /** A store operation, applied atomically at the store's virtual instant. */
    @FunctionalInterface
    interface Op<T> {
        T apply();
    }

    final Simulation sim;
    final Simulation.Run run;

    ModelBackend(Simulation sim, Simulation.Run run) {
        this.sim = sim;
        this.run = run;
    }

    <T> T call(String what, Op<T> op) throws IOException {
        return sim.call(run, what, op);
    }

    long lease() {
        return sim.lease;
    }

    @Override
    public String scope() {
        return "sim";
    }

    @Override
    public String describe(LeaseClaim<F> held) {
        return store() + ", owner '" + run.node.owner + "'" + (held == null ? "" : ", " + held.block().describe());
    }

    @Override
    public MachineIdLeases leases(LongPredicate heldHere) {
        throw new UnsupportedOperationException("a model store has no operator's view");
    }

    @Override
    public Duration closeTimeout() {
        return Duration.ofSeconds(10);
    }

    static MachineIdUnavailableException unavailable(String message) {
        return new MachineIdUnavailableException(message);
    }
}
