package io.vesta.autoconfigure;

import io.vesta.InvalidSettingException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * Reports a bad {@code vesta.*} setting with its name, its value and what is allowed, read from the
 * {@link InvalidSettingException} the builder that checked it threw: builders name each setting under the
 * {@code vesta.*} prefix the starter gives them, so nothing here parses a message.
 */
class VestaFailureAnalyzer extends AbstractFailureAnalyzer<InvalidSettingException> {

    private final Environment environment;

    /** Boot's failure analysis passes the application's environment, where each property's origin is kept. */
    VestaFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidSettingException cause) {
        if (cause.allowed() == null) {
            return new FailureAnalysis("Vesta cannot start: a property under '" + cause.setting() + "' is invalid.\n\n"
                    + cause.getMessage() + "\n", "Correct the property the description names, within the range it gives.", cause);
        }
        String value = cause.value() == null ? "(unset)" : "'" + cause.value() + "'";
        String origin = origin(cause.setting());
        String description = "Vesta cannot start: the property '" + cause.setting() + "' is " + value + ".\n"
                + (origin != null ? "    Origin: " + origin + "\n" : "") + "\n" + cause.getMessage() + "\n";
        String action = "Set '" + cause.setting() + "' to " + cause.allowed() + ".";
        return new FailureAnalysis(description, action, cause);
    }

    /**
     * Where the property was set, as Boot's own reports say it ({@code class path resource [application.properties]
     * - 3:24}), or null when it was not set in the environment (a default, a builder setting of the application's).
     */
    private String origin(String setting) {
        if (!(environment instanceof ConfigurableEnvironment configurable) || setting == null) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.isValid(setting) ? ConfigurationPropertyName.of(setting)
                : ConfigurationPropertyName.adapt(setting, '.');
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(configurable)) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                Origin origin = property.getOrigin();
                return origin != null ? origin.toString() : null;
            }
        }
        return null;
    }
}
