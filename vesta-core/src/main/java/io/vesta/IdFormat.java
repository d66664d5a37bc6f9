package io.vesta;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The text forms of a Vesta ID. {@link #BASE32} and {@link #BASE62} have a fixed length and read the ID as an
 * unsigned 64-bit number (a version-1 ID, whose top bit is set, is a negative {@code long}), so that their strings
 * sort, character by character in ASCII order, exactly as the IDs do when read as unsigned numbers; within one
 * version and type that is the order in which they were issued.
 *
 * <p>{@link #parse} refuses anything that is not an ID of its format with an {@link IllegalArgumentException} whose
 * message names the input, the format and what is wrong (empty, wrong length, which character at which index,
 * above 2^64-1). Thread-safe; no allocation beyond the result.
 */
public enum IdFormat {

    /** Today's form: {@link Long#toString(long)}, signed, so a version-1 ID is written with a minus sign. */
    DECIMAL {
        @Override
        public String format(long id) {
            return Long.toString(id);
        }

        @Override
        public long parse(CharSequence text) {
            String input = requireNonEmpty(text);
            int start = input.charAt(0) == '-' ? 1 : 0;
            if (start == input.length()) {
                throw refused(input, "it has no digits");
            }
            for (int i = start; i < input.length(); i++) {
                char c = input.charAt(i);
                if (c < '0' || c > '9') {
                    throw badCharacter(input, c, i, "a decimal digit");
                }
            }
            try {
                return Long.parseLong(input);
            } catch (NumberFormatException e) {
                throw refused(input, "it is outside [" + Long.MIN_VALUE + ", " + Long.MAX_VALUE + "]");
            }
        }
    },

    /**
     * Crockford base 32 ({@code 0-9} and {@code A-Z} without {@code I L O U}), always 13 characters, zero-padded, in
     * upper case. Reading ignores case, takes {@code I}/{@code L} as {@code 1} and {@code O} as {@code 0}, and
     * ignores hyphens, as Crockford's specification says, so {@code 0ABC-DEFG-HJKMN} reads as {@code 0ABCDEFGHJKMN};
     * the 13 characters are counted without them. The first character carries the top 4 bits and so is {@code 0}
     * to {@code F} ({@code 7} at most for a version-0 ID). Check symbols are not supported.
     */
    BASE32 {
        @Override
        public String format(long id) {
            char[] chars = new char[BASE32_LENGTH];
            for (int i = BASE32_LENGTH - 1; i >= 0; i--) {
                chars[i] = CROCKFORD.charAt((int) (id & 31));
                id >>>= 5;
            }
            return new String(chars);
        }

        @Override
        public long parse(CharSequence text) {
            String input = requireNonEmpty(text);
            int symbols = 0;
            for (int i = 0; i < input.length(); i++) {
                if (input.charAt(i) != '-') {
                    symbols++;
                }
            }
            if (symbols != BASE32_LENGTH) {
                throw refused(input, "it has " + symbols + " characters besides hyphens, a " + this + " ID has "
                        + BASE32_LENGTH);
            }
            long value = 0;
            boolean first = true;
            for (int i = 0; i < input.length(); i++) {
                char c = input.charAt(i);
                if (c == '-') {
                    continue;
                }
                int digit = c < 128 ? CROCKFORD_DECODE[c] : -1;
                if (digit < 0) {
                    throw badCharacter(input, c, i, "a Crockford base-32 digit (0-9, A-Z without U, either case)");
                }
                if (first && digit > 15) {
                    throw refused(input, "it is above 2^64-1 (the first character must be 0-9 or A-F)");
                }
                first = false;
                value = (value << 5) | digit;
            }
            return value;
        }
    },

    /**
     * Base 62 with the digits {@code 0-9A-Za-z}, in this order so that ASCII order is numeric order, always 11
     * characters, zero-padded. Reading is case-sensitive ({@code a} and {@code A} are different digits).
     */
    BASE62 {
        @Override
        public String format(long id) {
            char[] chars = new char[BASE62_LENGTH];
            // The first division is unsigned; the quotient is then below 2^58 and plain arithmetic does.
            long rest = Long.divideUnsigned(id, 62);
            chars[BASE62_LENGTH - 1] = BASE62_DIGITS.charAt((int) (id - rest * 62));
            for (int i = BASE62_LENGTH - 2; i >= 0; i--) {
                chars[i] = BASE62_DIGITS.charAt((int) (rest % 62));
                rest /= 62;
            }
            return new String(chars);
        }

        @Override
        public long parse(CharSequence text) {
            String input = requireNonEmpty(text);
            if (input.length() != BASE62_LENGTH) {
                throw refused(input, "it has " + input.length() + " characters, a " + this + " ID has "
                        + BASE62_LENGTH);
            }
            long value = 0;
            for (int i = 0; i < BASE62_LENGTH; i++) {
                char c = input.charAt(i);
                int digit = c < 128 ? BASE62_DECODE[c] : -1;
                if (digit < 0) {
                    throw badCharacter(input, c, i, "a base-62 digit (0-9, A-Z, a-z)");
                }
                if (Long.compareUnsigned(value, BASE62_MAX_BEFORE_DIGIT) > 0) {
                    throw refused(input, "it is above 2^64-1");
                }
                long shifted = value * 62;
                value = shifted + digit;
                if (Long.compareUnsigned(value, shifted) < 0) {
                    throw refused(input, "it is above 2^64-1");
                }
            }
            return value;
        }
    };

    /** The length of every {@link #BASE32} string. */
    public static final int BASE32_LENGTH = 13;

    /** The length of every {@link #BASE62} string. */
    public static final int BASE62_LENGTH = 11;

    private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    private static final String BASE62_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    private static final long BASE62_MAX_BEFORE_DIGIT = Long.divideUnsigned(-1L, 62);
    private static final int[] CROCKFORD_DECODE = decodeTable(CROCKFORD);
    private static final int[] BASE62_DECODE = decodeTable(BASE62_DIGITS);

    static {
        for (int i = 0; i < CROCKFORD.length(); i++) {
            CROCKFORD_DECODE[Character.toLowerCase(CROCKFORD.charAt(i))] = i;
        }
        CROCKFORD_DECODE['I'] = 1;
        CROCKFORD_DECODE['i'] = 1;
        CROCKFORD_DECODE['L'] = 1;
        CROCKFORD_DECODE['l'] = 1;
        CROCKFORD_DECODE['O'] = 0;
        CROCKFORD_DECODE['o'] = 0;
    }

    /** {@code id} in this format. */
    public abstract String format(long id);

    /**
     * The ID that {@code text} is in this format.
     * @throws IllegalArgumentException naming the input, this format and what is wrong, if it is not one
     */
    public abstract long parse(CharSequence text);

    /**
     * The format named {@code name}, in any case ({@code "base32"}, {@code "BASE32"}), for configuration.
     * @throws IllegalArgumentException naming the value and the allowed names otherwise
     */
    public static IdFormat of(String name) {
        if (name != null) {
            for (IdFormat format : values()) {
                if (format.name().equalsIgnoreCase(name.trim())) {
                    return format;
                }
            }
        }
        throw new IllegalArgumentException((name == null ? "null" : "\"" + BizTagFormat.escape(name) + "\"")
                + " is not an ID format; allowed: " + allowedNames());
    }

    /** The names {@link #of} accepts, in lower case: {@code decimal, base32, base62}. */
    public static String allowedNames() {
        return Arrays.stream(values()).map(SettingNames::kebab).collect(Collectors.joining(", "));
    }

    private static int[] decodeTable(String digits) {
        int[] table = new int[128];
        Arrays.fill(table, -1);
        for (int i = 0; i < digits.length(); i++) {
            table[digits.charAt(i)] = i;
        }
        return table;
    }

    String requireNonEmpty(CharSequence text) {
        if (text == null) {
            throw new IllegalArgumentException("null is not a " + this + " ID");
        }
        String input = text.toString();
        if (input.isEmpty()) {
            throw refused(input, "it is empty");
        }
        return input;
    }

    IllegalArgumentException refused(String input, String problem) {
        return new IllegalArgumentException("\"" + BizTagFormat.escape(input) + "\" is not a " + this + " ID: "
                + problem);
    }

    IllegalArgumentException badCharacter(String input, char c, int index, String expected) {
        String shown = c >= 0x20 && c < 0x7f ? "'" + c + "'" : String.format("'\\u%04x'", (int) c);
        return refused(input, "the character " + shown + " at index " + index + " is not " + expected);
    }
}
