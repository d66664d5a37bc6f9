package io.vesta.autoconfigure;

import io.vesta.GenMethod;

/**
 * The gen-method whose machine-ID range ({@code vesta.machine-id.embedded-range} or
 * {@code vesta.machine-id.server-range}) this node's machine ID is drawn from, when that is not what
 * {@code vesta.gen-method} says: a central server registers one so that its rest and central-server generators
 * share one machine ID of the server range. Without this bean, {@code vesta.gen-method} decides.
 */
public record MachineIdGenMethod(GenMethod genMethod) {
}
