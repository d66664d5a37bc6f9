package io.vesta.autoconfigure;

import io.vesta.InvalidSettingException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a bad {@code vesta.*} setting with its name, its value and what is allowed, read from the
 * {@link InvalidSettingException} the builder that checked it threw: builders name each setting under the
 * {@code vesta.*} prefix the starter gives them, so nothing here parses a message.
 */
class VestaFailureAnalyzer extends AbstractFailureAnalyzer<InvalidSettingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidSettingException cause) {
        if (cause.allowed() == null) {
            return new FailureAnalysis("Vesta cannot start: a property under '" + cause.setting() + "' is invalid.\n\n"
                    + cause.getMessage() + "\n", "Correct the property the description names, within the range it gives.", cause);
        }
        String value = cause.value() == null ? "(unset)" : "'" + cause.value() + "'";
        String description = "Vesta cannot start: the property '" + cause.setting() + "' is " + value + ".\n\n"
                + cause.getMessage() + "\n";
        String action = "Set '" + cause.setting() + "' to " + cause.allowed() + ".";
        return new FailureAnalysis(description, action, cause);
    }
}
