package io.vesta.autoconfigure;

import io.vesta.InvalidSettingException;

/**
 * A {@code vesta.*} property whose value cannot be used: an {@link InvalidSettingException} with the message the
 * starter has always shown. Kept only while the {@code client} package still throws it and the lease builders
 * still throw plain {@link IllegalArgumentException}s ({@code MachineIdConfiguration} wraps those); everything
 * else throws {@link InvalidSettingException}, which {@link VestaFailureAnalyzer} reports.
 */
public class InvalidVestaPropertyException extends InvalidSettingException {

    private final String message;

    public InvalidVestaPropertyException(String property, Object value, String allowed, String problem, Throwable cause) {
        super(property, value, allowed, problem);
        this.message = "Invalid Vesta configuration: " + property + "=" + (value == null ? "(unset)" : value) + " "
                + problem + "; allowed: " + allowed;
        if (cause != null) {
            initCause(cause);
        }
    }

    public InvalidVestaPropertyException(String property, Object value, String allowed, String problem) {
        this(property, value, allowed, problem, null);
    }

    /**
     * A setting the engine refused; its message already names the setting (with the property prefix), the
     * value and the allowed range.
     */
    public InvalidVestaPropertyException(String property, IllegalArgumentException engineError) {
        super(property, null, null, "is invalid");
        this.message = "Invalid Vesta configuration: " + engineError.getMessage();
        initCause(engineError);
    }

    @Override
    public String getMessage() {
        return message;
    }

    public String getProperty() {
        return setting();
    }

    public Object getValue() {
        return value();
    }

    /** What is allowed, or null when the message says it. */
    public String getAllowed() {
        return allowed();
    }
}
