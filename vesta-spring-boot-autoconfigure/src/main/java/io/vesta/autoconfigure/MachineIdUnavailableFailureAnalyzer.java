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
                        + " machine ID with vesta.machine-id.strategy=property and 'vesta.machine-id.value'.",
                cause);
    }
}
