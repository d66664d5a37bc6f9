package io.vesta.autoconfigure;

import io.vesta.machine.MachineIdUnavailableException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports that no machine ID could be had for this node, and how to give it one. */
class MachineIdUnavailableFailureAnalyzer extends AbstractFailureAnalyzer<MachineIdUnavailableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MachineIdUnavailableException cause) {
        return new FailureAnalysis("Vesta cannot start: no machine ID is available for this node.\n\n"
                + cause.getMessage() + "\n",
                "Check 'vesta.machine-id.strategy' and its settings: with ip-list, add one of this host's addresses to"
                        + " 'vesta.machine-id.ip-list' (in the same position on every node); or give the node a fixed"
                        + " machine ID with vesta.machine-id.strategy=property and 'vesta.machine-id.value'. With"
                        + " 'vesta.machine-id.block-size' above 1 each node holds a whole block: a range of n machine IDs"
                        + " holds n / block-size nodes (the server range 924-1023 holds 12 with blocks of 8), so lower"
                        + " the block size or widen the range.",
                cause);
    }
}
