package io.vesta.publicid;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The FF1 samples NIST publishes for SP 800-38G (FF1samples.pdf, samples 1 to 9: AES-128, AES-192 and AES-256, radix
 * 10 and 36, with and without a tweak), through {@link Ff1}, the wiring {@link Ff1PublicIds} uses: encryption gives the
 * published ciphertext and decryption the plaintext.
 */
class Ff1Tests {

    static final String KEY_128 = "2B7E151628AED2A6ABF7158809CF4F3C";
    static final String KEY_192 = KEY_128 + "EF4359D8D580AA4F";
    static final String KEY_256 = KEY_192 + "7F036D6F04FC6A94";
    static final String DIGITS_36 = "0123456789abcdefghijklmnopqrstuvwxyz";

    @ParameterizedTest(name = "NIST FF1 sample {0}")
    @CsvSource({
            "1, " + KEY_128 + ", 10, '',                     0123456789,          2433477484",
            "2, " + KEY_128 + ", 10, 39383736353433323130,   0123456789,          6124200773",
            "3, " + KEY_128 + ", 36, 3737373770717273373737, 0123456789abcdefghi, a9tv40mll9kdu509eum",
            "4, " + KEY_192 + ", 10, '',                     0123456789,          2830668132",
            "5, " + KEY_192 + ", 10, 39383736353433323130,   0123456789,          2496655549",
            "6, " + KEY_192 + ", 36, 3737373770717273373737, 0123456789abcdefghi, xbj3kv35jrawxv32ysr",
            "7, " + KEY_256 + ", 10, '',                     0123456789,          6657667009",
            "8, " + KEY_256 + ", 10, 39383736353433323130,   0123456789,          1001623463",
            "9, " + KEY_256 + ", 36, 3737373770717273373737, 0123456789abcdefghi, xs8a0azh2avyalyzuwd" })
    void nistSamplesEncryptAndDecryptAsPublished(int sample, String key, int radix, String tweak, String plain,
            String cipher) {
        Ff1 ff1 = new Ff1(HexFormat.of().parseHex(key), radix, HexFormat.of().parseHex(tweak == null ? "" : tweak));
        assertThat(text(ff1.encrypt(digits(plain)))).isEqualTo(cipher);
        assertThat(text(ff1.decrypt(digits(cipher)))).isEqualTo(plain);
    }

    @Test
    void aKeyOfAnotherLengthThanAesIsRefused() {
        assertThatThrownBy(() -> new Ff1(new byte[20], 32, new byte[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an AES key has 16, 24 or 32 bytes, this one has 20");
    }

    private static byte[] digits(String text) {
        byte[] digits = new byte[text.length()];
        for (int i = 0; i < text.length(); i++) {
            digits[i] = (byte) DIGITS_36.indexOf(text.charAt(i));
        }
        return digits;
    }

    private static String text(byte[] digits) {
        StringBuilder text = new StringBuilder(digits.length);
        for (byte digit : digits) {
            text.append(DIGITS_36.charAt(digit));
        }
        return text.toString();
    }
}
