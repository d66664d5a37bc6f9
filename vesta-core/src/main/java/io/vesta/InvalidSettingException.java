package io.vesta;

import java.time.Duration;

/**
 * A setting that cannot be used, refused when a builder checks its settings. It carries the setting's full name
 * (under the prefix the caller gave its builder, such as {@code vesta.client.timeout}), the value that was given
 * and what is allowed, so that a caller can report all three without parsing the message.
 */
public class InvalidSettingException extends IllegalArgumentException {

    private final String setting;
    private final transient Object value;
    private final String allowed;

    /**
     * @param setting the setting's name as the user typed it
     * @param value   the value that was given, or null when the setting was not set
     * @param allowed what is allowed, as a phrase that completes "set it to ...": {@code "a duration in [1ms, 10m]"}
     * @param problem what is wrong with the value, as a phrase that follows it: {@code "is out of range"}
     */
    public InvalidSettingException(String setting, Object value, String allowed, String problem) {
        super(setting + "=" + (value == null ? "(unset)" : value) + " " + problem + "; allowed: " + allowed);
        this.setting = setting;
        this.value = value;
        this.allowed = allowed;
    }

    /** A value out of the allowed range. */
    public InvalidSettingException(String setting, Object value, String allowed) {
        this(setting, value, allowed, value == null ? "is required" : "is out of range");
    }

    /** The setting's full name, prefix included. */
    public String setting() {
        return setting;
    }

    /** The value that was given; null when the setting was not set. */
    public Object value() {
        return value;
    }

    /** What is allowed, as a phrase that completes "set it to ...". */
    public String allowed() {
        return allowed;
    }

    /**
     * {@code value} when it is in {@code [min, max]}.
     * @throws InvalidSettingException naming {@code setting}, the value and the range otherwise
     */
    public static long requireInRange(String setting, long value, long min, long max) {
        if (value < min || value > max) {
            throw new InvalidSettingException(setting, value, "a value in [" + min + ", " + max + "]");
        }
        return value;
    }

    /**
     * {@code value} when it is set and in {@code [min, max]}.
     * @throws InvalidSettingException naming {@code setting}, the value and the range otherwise
     */
    public static Duration requireInRange(String setting, Duration value, Duration min, Duration max) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidSettingException(setting, value == null ? null : value.toMillis() + "ms",
                    "a duration in [" + min.toMillis() + "ms, " + max.toMillis() + "ms]");
        }
        return value;
    }

    /**
     * {@code value} when it is not null.
     * @throws InvalidSettingException naming {@code setting} and {@code allowed} otherwise
     */
    public static <T> T requireSet(String setting, T value, String allowed) {
        if (value == null) {
            throw new InvalidSettingException(setting, null, allowed, "is required");
        }
        return value;
    }
}
