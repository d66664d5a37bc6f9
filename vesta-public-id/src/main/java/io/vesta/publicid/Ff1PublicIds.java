package io.vesta.publicid;

import io.vesta.InvalidSettingException;
import io.vesta.PublicIds;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * {@link PublicIds} with NIST SP 800-38G FF1 over AES (Bouncy Castle): a keyed permutation of the ID, so that the
 * public form shows nothing of the time, machine, sequence or order of the ID, nor how many IDs lie between two.
 *
 * <p>The public form is {@value #LENGTH} Crockford base-32 characters ({@code 0-9}, {@code A-Z} without
 * {@code I L O U}), written in upper case: the first names the key that made it (key IDs 0 to 31), the other
 * {@value #CIPHER_DIGITS} are the FF1 encryption, in radix 32, of an 80-bit number: the ID's 64 bits, read as
 * unsigned (a version-1 ID is a negative {@code long}), followed by {@value #CHECK_BITS} zero bits. Decrypting a
 * string that was not made by that key (a typo, a tampered character, another key or tweak) gives 80 bits that look
 * random, whose low {@value #CHECK_BITS} bits are all zero with probability 2^-16: such a string is refused with
 * probability 1 - 2^-16 (65535 in 65536). FF1's tweak is the key ID followed by the configured tweak's UTF-8 bytes, so
 * that the key character cannot be swapped and two applications with the same key but different tweaks make
 * unrelated forms.
 *
 * <p>Reading ({@link #fromPublic}) ignores case but is otherwise strict: no hyphens, and no {@code I L O} read as
 * {@code 1 1 0} as Crockford allows for typed numbers, so that each ID has exactly one public form up to case.
 * Every key configured reads; the current key alone writes ({@link #toPublic}), which is how keys rotate. Immutable
 * and thread-safe; each conversion runs FF1 once (ten AES-based rounds), see docs/performance.md for its cost.
 */
public final class Ff1PublicIds implements PublicIds {

    /** The length of every public ID: the key character and the cipher digits. */
    public static final int LENGTH = 17;

    /** The FF1 digits (radix 32) after the key character: 80 bits. */
    public static final int CIPHER_DIGITS = 16;

    /** The zero bits added to the ID inside the FF1 domain, checked when reading. */
    public static final int CHECK_BITS = 16;

    /** The highest key ID: one Crockford base-32 character. */
    public static final int MAX_KEY_ID = 31;

    private static final int RADIX = 32;
    private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    private static final int[] DECODE = new int[128];
    private static final long CHECK_MASK = (1L << CHECK_BITS) - 1;

    static {
        Arrays.fill(DECODE, -1);
        for (int i = 0; i < CROCKFORD.length(); i++) {
            DECODE[CROCKFORD.charAt(i)] = i;
            DECODE[Character.toLowerCase(CROCKFORD.charAt(i))] = i;
        }
    }

    private final Ff1[] ciphers = new Ff1[MAX_KEY_ID + 1];
    private final int currentKey;
    private final String configuredKeys;

    private Ff1PublicIds(Builder builder) {
        byte[] tweak = builder.tweak.getBytes(StandardCharsets.UTF_8);
        StringJoiner ids = new StringJoiner(", ");
        for (Map.Entry<Integer, byte[]> key : builder.keys.entrySet()) {
            int id = key.getKey();
            byte[] keyTweak = new byte[tweak.length + 1];
            keyTweak[0] = (byte) id;
            System.arraycopy(tweak, 0, keyTweak, 1, tweak.length);
            ciphers[id] = new Ff1(key.getValue(), RADIX, keyTweak);
            ids.add(Integer.toString(id));
        }
        this.currentKey = builder.currentKey;
        this.configuredKeys = ids.toString();
    }

    /** A builder: at least one key, the current key among them, and optionally a tweak. */
    public static Builder builder() {
        return new Builder();
    }

    /** The key ID {@link #toPublic} uses. */
    public int currentKey() {
        return currentKey;
    }

    @Override
    public String toPublic(long id) {
        // The 80-bit number id * 2^16 as its 16 top bits and its 64 low bits, cut into 16 five-bit digits.
        long high = id >>> (64 - CHECK_BITS);
        long low = id << CHECK_BITS;
        byte[] digits = new byte[CIPHER_DIGITS];
        for (int i = CIPHER_DIGITS - 1; i >= 0; i--) {
            digits[i] = (byte) (low & 31);
            low = (low >>> 5) | (high << 59);
            high >>>= 5;
        }
        byte[] cipher = ciphers[currentKey].encrypt(digits);
        char[] chars = new char[LENGTH];
        chars[0] = CROCKFORD.charAt(currentKey);
        for (int i = 0; i < CIPHER_DIGITS; i++) {
            chars[i + 1] = CROCKFORD.charAt(cipher[i]);
        }
        return new String(chars);
    }

    @Override
    public long fromPublic(CharSequence publicId) {
        if (publicId == null) {
            throw PublicIds.refused(null, "it is null");
        }
        if (publicId.length() != LENGTH) {
            throw PublicIds.refused(publicId, "it has " + publicId.length() + " characters, a public ID has " + LENGTH);
        }
        byte[] digits = new byte[CIPHER_DIGITS];
        int key = -1;
        for (int i = 0; i < LENGTH; i++) {
            char c = publicId.charAt(i);
            int digit = c < 128 ? DECODE[c] : -1;
            if (digit < 0) {
                String shown = c >= 0x20 && c < 0x7f ? "'" + c + "'" : String.format("'\\u%04x'", (int) c);
                throw PublicIds.refused(publicId, "the character " + shown + " at index " + i
                        + " is not a Crockford base-32 digit (0-9, A-Z without I L O U, either case)");
            }
            if (i == 0) {
                key = digit;
            } else {
                digits[i - 1] = (byte) digit;
            }
        }
        if (ciphers[key] == null) {
            throw PublicIds.refused(publicId, "its key ID " + key + " ('" + publicId.charAt(0)
                    + "') is not configured; configured key IDs: " + configuredKeys);
        }
        byte[] plain = ciphers[key].decrypt(digits);
        long high = 0; // the top 16 of the 80 bits
        long low = 0;
        for (byte digit : plain) {
            high = (high << 5) | (low >>> 59);
            low = (low << 5) | digit;
        }
        if ((low & CHECK_MASK) != 0) {
            throw PublicIds.refused(publicId, "it fails the check under key ID " + key
                    + ": mistyped or altered, or made with another key or tweak");
        }
        return (high << (64 - CHECK_BITS)) | (low >>> CHECK_BITS);
    }

    @Override
    public String toString() {
        // Never the keys: their IDs only.
        return "Ff1PublicIds[keys " + configuredKeys + ", current " + currentKey + "]";
    }

    /**
     * The settings of an {@link Ff1PublicIds}, checked by {@link #build}; an {@link InvalidSettingException} names the
     * setting under {@link #settingsPrefix} ({@code keys.<id>}, {@code current-key}), the value (a key by its length
     * only, never its bytes) and what is allowed.
     */
    public static final class Builder {

        private final Map<Integer, byte[]> keys = new TreeMap<>();
        private Integer currentKey;
        private String tweak = "";
        private String prefix = "";

        private Builder() {
        }

        /** The prefix of the settings in errors, such as {@code vesta.public-id.}; none by default. */
        public Builder settingsPrefix(String prefix) {
            this.prefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * Adds an AES key (16, 24 or 32 bytes, copied) under a key ID in [0, {@value #MAX_KEY_ID}]. Every key reads the
         * public IDs it made; keep a retired key as long as its public IDs are in circulation.
         */
        public Builder key(int keyId, byte[] aesKey) {
            String setting = prefix + "keys." + keyId;
            if (keyId < 0 || keyId > MAX_KEY_ID) {
                throw new InvalidSettingException(setting, "(a key)", "key IDs in [0, " + MAX_KEY_ID + "]",
                        "has a key ID out of range");
            }
            if (aesKey == null) {
                throw new InvalidSettingException(setting, null, "an AES key of 16, 24 or 32 bytes");
            }
            if (aesKey.length != 16 && aesKey.length != 24 && aesKey.length != 32) {
                throw new InvalidSettingException(setting, "(a key of " + aesKey.length + " bytes, not shown)",
                        "an AES key of 16, 24 or 32 bytes", "has the wrong length");
            }
            keys.put(keyId, aesKey.clone());
            return this;
        }

        /** The key ID that makes public IDs; optional when there is a single key. */
        public Builder currentKey(int keyId) {
            this.currentKey = keyId;
            return this;
        }

        /**
         * A string of the application's (its name, say) mixed into every public ID, so that two applications with the
         * same key still make unrelated public IDs; empty by default. Changing it changes every public ID, like a key.
         */
        public Builder tweak(String tweak) {
            this.tweak = Objects.requireNonNull(tweak, "tweak");
            return this;
        }

        public Ff1PublicIds build() {
            if (keys.isEmpty()) {
                throw new InvalidSettingException(prefix + "keys", null,
                        "at least one AES key of 16, 24 or 32 bytes under a key ID in [0, " + MAX_KEY_ID + "]");
            }
            if (currentKey == null) {
                if (keys.size() > 1) {
                    throw new InvalidSettingException(prefix + "current-key", null,
                            "one of the configured key IDs " + keys.keySet(), "is required with several keys");
                }
                currentKey = keys.keySet().iterator().next();
            } else if (!keys.containsKey(currentKey)) {
                throw new InvalidSettingException(prefix + "current-key", currentKey,
                        "one of the configured key IDs " + keys.keySet(), "names no configured key");
            }
            return new Ff1PublicIds(this);
        }
    }
}
