package io.vesta.autoconfigure;

/**
 * A {@code vesta.*} property whose value cannot be used. Carries the property, the value and what is
 * allowed, which {@link VestaFailureAnalyzer} turns into Spring Boot's start-up failure report.
 */
public class InvalidVestaPropertyException extends IllegalArgumentException {

    private final String property;
    private final Object value;
    private final String allowed;

    public InvalidVestaPropertyException(String property, Object value, String allowed, String problem, Throwable cause) {
        super("Invalid Vesta configuration: " + property + "=" + (value == null ? "(unset)" : value) + " " + problem
                + "; allowed: " + allowed, cause);
        this.property = property;
        this.value = value;
        this.allowed = allowed;
    }

    public InvalidVestaPropertyException(String property, Object value, String allowed, String problem) {
        this(property, value, allowed, problem, null);
    }

    /**
     * A setting the engine refused; its message already names the setting (with the property prefix), the
     * value and the allowed range.
     */
    public InvalidVestaPropertyException(String property, IllegalArgumentException engineError) {
        super("Invalid Vesta configuration: " + engineError.getMessage(), engineError);
        this.property = property;
        this.value = null;
        this.allowed = null;
    }

    public String getProperty() {
        return property;
    }

    public Object getValue() {
        return value;
    }

    /** What is allowed, or null when the message says it. */
    public String getAllowed() {
        return allowed;
    }
}
