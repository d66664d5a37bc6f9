package io.vesta.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a bad {@code vesta.*} property with its name, its value and what is allowed. */
class VestaFailureAnalyzer extends AbstractFailureAnalyzer<InvalidVestaPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidVestaPropertyException cause) {
        if (cause.getAllowed() == null) {
            return new FailureAnalysis("Vesta cannot start: a property under '" + cause.getProperty() + "' is invalid.\n\n"
                    + cause.getMessage() + "\n", "Correct the property the description names, within the range it gives.", cause);
        }
        String value = cause.getValue() == null ? "(unset)" : "'" + cause.getValue() + "'";
        String description = "Vesta cannot start: the property '" + cause.getProperty() + "' is " + value + ".\n\n"
                + cause.getMessage() + "\n";
        String action = "Set '" + cause.getProperty() + "' to " + cause.getAllowed() + ".";
        return new FailureAnalysis(description, action, cause);
    }
}
