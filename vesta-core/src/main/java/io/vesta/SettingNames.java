package io.vesta;

import java.util.Locale;

/**
 * How the {@code vesta.*} settings spell enum values, in one place: errors, restart-mark file names and layouts
 * described to people all name a type or gen-method the way a property gives it, so that what is read can be typed
 * back into the configuration.
 */
public final class SettingNames {

    private SettingNames() {
    }

    /** An enum constant as a property spells it: {@code CENTRAL_SERVER} is {@code central-server}. */
    public static String kebab(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
