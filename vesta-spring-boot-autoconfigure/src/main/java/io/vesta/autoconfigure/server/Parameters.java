package io.vesta.autoconfigure.server;

import io.vesta.IdFormat;
import io.vesta.IdService;
import io.vesta.SettingNames;


/**
 * Parsing of the server's request parameters, each failure a {@link BadParameterException} naming the parameter. Numbers
 * are ASCII digits only ({@link #decimal}), here and in the segment endpoint.
 */
public final class Parameters {

    private Parameters() {
    }

    static int count(String count) {
        String allowed = "an integer in [1, " + IdService.MAX_BATCH + "]";
        if (count == null) {
            throw new BadParameterException("count", null, "count is required: " + allowed);
        }
        int value;
        try {
            value = Integer.parseInt(decimal(count));
        } catch (NumberFormatException e) {
            throw new BadParameterException("count", count, "count must be " + allowed + ", was '" + count + "'");
        }
        if (value < 1 || value > IdService.MAX_BATCH) {
            throw new BadParameterException("count", count, "count must be in [1, " + IdService.MAX_BATCH + "], was " + value);
        }
        return value;
    }

    /** The forms an ID may be given in, for the messages that refuse one. */
    static final String ID_FORMS = "the forms: decimal (the default), format=base32 (13 Crockford base-32 characters),"
            + " format=base62 (11 characters)";

    /** An ID in signed decimal, or unsigned for version-1 IDs (which are negative as signed longs). */
    static long id(String id) {
        try {
            String text = decimal(id);
            return text.startsWith("-") ? Long.parseLong(text) : Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new BadParameterException("id", id, "id must be a 64-bit integer (signed, or unsigned for version-1 IDs),"
                    + " was '" + id + "'; " + ID_FORMS);
        }
    }

    /** An ID in {@code format}; {@code null} or decimal reads it as {@link #id(String)} does. */
    static long id(String id, IdFormat format) {
        if (format == null || format == IdFormat.DECIMAL) {
            return id(id);
        }
        try {
            return format.parse(id);
        } catch (IllegalArgumentException e) {
            throw new BadParameterException("id", id, "id must be an ID in the form format="
                    + SettingNames.kebab(format) + " asks for: "
                    + e.getMessage() + "; " + ID_FORMS);
        }
    }

    /** The {@code format} parameter: the text form of IDs; {@code null} when it is not given. */
    static IdFormat format(String format) {
        if (format == null) {
            return null;
        }
        try {
            return IdFormat.of(format);
        } catch (IllegalArgumentException e) {
            throw new BadParameterException("format", format, "format must be one of " + IdFormat.allowedNames()
                    + ", was '" + format + "'");
        }
    }


    /** A field of an ID; {@code fallback} when it is not given. Its range is checked where the ID is made. */
    static long field(String name, String value, Long fallback) {
        if (value == null || value.isBlank()) {
            if (fallback == null) {
                throw new BadParameterException(name, null, name + " is required: an integer");
            }
            return fallback;
        }
        try {
            return Long.parseLong(decimal(value));
        } catch (NumberFormatException e) {
            throw new BadParameterException(name, value, name + " must be an integer, was '" + value + "'");
        }
    }

    /**
     * The text without surrounding spaces, if it is ASCII digits after an optional {@code -}. {@link Long#parseLong}
     * alone would also take a {@code +} and the digits of every other script ({@code ５}, {@code ١٢}), which no client
     * means as a number here.
     *
     * @throws NumberFormatException otherwise
     */
    public static String decimal(String text) {
        String trimmed = text.trim();
        int start = trimmed.startsWith("-") ? 1 : 0;
        if (trimmed.length() == start) {
            throw new NumberFormatException("no digits");
        }
        for (int i = start; i < trimmed.length(); i++) {
            char c = trimmed.charAt(i);
            if (c < '0' || c > '9') {
                throw new NumberFormatException("not an ASCII digit: " + c);
            }
        }
        return trimmed;
    }
}
