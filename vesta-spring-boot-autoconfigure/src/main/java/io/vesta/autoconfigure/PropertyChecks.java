package io.vesta.autoconfigure;

import io.vesta.InvalidSettingException;

import java.time.Duration;

/** Range checks of {@code vesta.*} values that fail with the property's name, its value and the allowed range. */
public final class PropertyChecks {

    private PropertyChecks() {
    }

    public static long checkLong(String property, long value, long min, long max) {
        if (value < min || value > max) {
            throw new InvalidSettingException(property, value, "[" + min + ", " + max + "]", "is out of range");
        }
        return value;
    }

    public static Duration checkDuration(String property, Duration value, Duration min, Duration max) {
        if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new InvalidSettingException(property, value == null ? null : value.toMillis() + "ms",
                    "[" + min.toMillis() + "ms, " + max.toMillis() + "ms]", "is out of range");
        }
        return value;
    }
}
