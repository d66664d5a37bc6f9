package io.vesta;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link IdFormat}: known values computed outside the code under test (BigInteger, and by hand), round trips over
 * millions of seeded longs, the unsigned sort order, and every refusal with its message.
 */
class IdFormatTests {

    private static final long SEED = 0x5EED_28L;
    private static final int ROUND_TRIPS = 2_000_000;
    private static final long[] EDGES = { 0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1,
            Long.MAX_VALUE - 1, 31, 32, 61, 62 };
    private static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    private static final String BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    /** The ID as an unsigned number written in {@code digits}, zero-padded to {@code length}, with BigInteger. */
    private static String reference(long id, String digits, int length) {
        BigInteger value = new BigInteger(Long.toUnsignedString(id));
        BigInteger radix = BigInteger.valueOf(digits.length());
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            BigInteger[] qr = value.divideAndRemainder(radix);
            text.append(digits.charAt(qr[1].intValue()));
            value = qr[0];
        }
        assertThat(value).isZero();
        return text.reverse().toString();
    }

    @Test
    void knownBase32Values() {
        assertThat(IdFormat.BASE32.format(0)).isEqualTo("0000000000000");
        assertThat(IdFormat.BASE32.format(1)).isEqualTo("0000000000001");
        assertThat(IdFormat.BASE32.format(31)).isEqualTo("000000000000Z");
        assertThat(IdFormat.BASE32.format(32)).isEqualTo("0000000000010");
        // 2^63-1: the top 4 bits are 0111, then 60 one bits (12 Z's); 2^63 is 1000 and zeros; 2^64-1 all ones.
        assertThat(IdFormat.BASE32.format(Long.MAX_VALUE)).isEqualTo("7ZZZZZZZZZZZZ");
        assertThat(IdFormat.BASE32.format(Long.MIN_VALUE)).isEqualTo("8000000000000");
        assertThat(IdFormat.BASE32.format(-1)).isEqualTo("FZZZZZZZZZZZZ");
        assertThat(IdFormat.BASE32.parse("FZZZZZZZZZZZZ")).isEqualTo(-1);
        // The example of docs/id-layout.md, computed with Python's integers.
        assertThat(IdFormat.BASE32.format(5006270189229047809L)).isEqualTo("4AYER6SVA0001");
        assertThat(IdFormat.BASE32.parse("4AYE-R6SV-A0001")).isEqualTo(5006270189229047809L);
    }

    @Test
    void knownBase62Values() {
        // Computed with Python's integers: n % 62 and n // 62, eleven times.
        assertThat(IdFormat.BASE62.format(0)).isEqualTo("00000000000");
        assertThat(IdFormat.BASE62.format(61)).isEqualTo("0000000000z");
        assertThat(IdFormat.BASE62.format(62)).isEqualTo("00000000010");
        assertThat(IdFormat.BASE62.format(Long.MAX_VALUE)).isEqualTo("AzL8n0Y58m7");
        assertThat(IdFormat.BASE62.format(Long.MIN_VALUE)).isEqualTo("AzL8n0Y58m8");
        assertThat(IdFormat.BASE62.format(-1)).isEqualTo("LygHa16AHYF");
        assertThat(IdFormat.BASE62.parse("LygHa16AHYF")).isEqualTo(-1);
        assertThat(IdFormat.BASE62.format(5006270189229047809L)).isEqualTo("5xolm6dWDVR");
    }

    @Test
    void decimalIsTodaysSignedForm() {
        assertThat(IdFormat.DECIMAL.format(5006270189229047809L)).isEqualTo("5006270189229047809");
        assertThat(IdFormat.DECIMAL.format(-1)).isEqualTo("-1");
        assertThat(IdFormat.DECIMAL.parse("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
        assertThat(IdFormat.DECIMAL.parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void base32AndBase62AgreeWithBigIntegerOverSeededRandomLongs() {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 200_000; i++) {
            long id = i < EDGES.length ? EDGES[i] : random.nextLong();
            assertThat(IdFormat.BASE32.format(id)).isEqualTo(reference(id, CROCKFORD, 13));
            assertThat(IdFormat.BASE62.format(id)).isEqualTo(reference(id, BASE62, 11));
        }
    }

    @ParameterizedTest
    @EnumSource(IdFormat.class)
    void roundTripsOverMillionsOfSeededRandomLongs(IdFormat format) {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < ROUND_TRIPS; i++) {
            long id = i < EDGES.length ? EDGES[i] : random.nextLong();
            String text = format.format(id);
            if (format != IdFormat.DECIMAL) {
                if (text.length() != (format == IdFormat.BASE32 ? 13 : 11)) {
                    throw new AssertionError(format + " of " + id + " is " + text);
                }
            }
            if (format.parse(text) != id) {
                throw new AssertionError(format + " of " + id + " is " + text + ", read back as " + format.parse(text));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = IdFormat.class, names = { "BASE32", "BASE62" })
    void stringsSortAsTheIdsDoReadAsUnsigned(IdFormat format) {
        SplittableRandom random = new SplittableRandom(SEED + 1);
        long[] ids = new long[200_000];
        for (int i = 0; i < ids.length; i++) {
            // Half spread over all 64 bits, half close together, as IDs of one node are.
            ids[i] = i < EDGES.length ? EDGES[i] : i % 2 == 0 ? random.nextLong() : 5006270189229047809L + random.nextInt(1 << 20);
        }
        Long[] byId = Arrays.stream(ids).boxed().sorted(Long::compareUnsigned).toArray(Long[]::new);
        String[] byText = Arrays.stream(ids).mapToObj(format::format).sorted(Comparator.naturalOrder())
                .toArray(String[]::new);
        for (int i = 0; i < ids.length; i++) {
            assertThat(byText[i]).isEqualTo(format.format(byId[i]));
        }
    }

    @Test
    void crockfordReadsAnyCaseAndTheConfusableLetters() {
        long id = IdFormat.BASE32.parse("0ABCDEFGHJKMN");
        assertThat(IdFormat.BASE32.parse("0abcdefghjkmn")).isEqualTo(id);
        assertThat(IdFormat.BASE32.parse("0aBcDeFgHjKmN")).isEqualTo(id);
        // I, i, L, l read as 1; O, o as 0.
        long ones = IdFormat.BASE32.parse("0000000000011");
        assertThat(IdFormat.BASE32.parse("00000000000Il")).isEqualTo(ones);
        assertThat(IdFormat.BASE32.parse("00000000000iL")).isEqualTo(ones);
        assertThat(IdFormat.BASE32.parse("Oo0000000000l")).isEqualTo(1);
        assertThat(ones).isEqualTo(33);
    }

    @Test
    void crockfordIgnoresHyphensAsItsSpecificationSays() {
        assertThat(IdFormat.BASE32.parse("0ABC-DEFG-HJKMN")).isEqualTo(IdFormat.BASE32.parse("0ABCDEFGHJKMN"));
        assertThat(IdFormat.BASE32.parse("-000000000000-1-")).isEqualTo(1);
    }

    @Test
    void emptyAndNullAreRefused() {
        for (IdFormat format : IdFormat.values()) {
            assertThatThrownBy(() -> format.parse("")).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("\"\" is not a " + format + " ID: it is empty");
            assertThatThrownBy(() -> format.parse(null)).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("null is not a " + format + " ID");
        }
        assertThatThrownBy(() -> IdFormat.DECIMAL.parse("-")).hasMessage("\"-\" is not a DECIMAL ID: it has no digits");
        assertThatThrownBy(() -> IdFormat.BASE32.parse("---"))
                .hasMessage("\"---\" is not a BASE32 ID: it has 0 characters besides hyphens, a BASE32 ID has 13");
    }

    @Test
    void aWrongLengthIsRefused() {
        assertThatThrownBy(() -> IdFormat.BASE32.parse("000000000000"))
                .hasMessage("\"000000000000\" is not a BASE32 ID: it has 12 characters besides hyphens, a BASE32 ID has 13");
        assertThatThrownBy(() -> IdFormat.BASE32.parse("00000000000000"))
                .hasMessage("\"00000000000000\" is not a BASE32 ID: it has 14 characters besides hyphens, a BASE32 ID has 13");
        assertThatThrownBy(() -> IdFormat.BASE62.parse("0000000000"))
                .hasMessage("\"0000000000\" is not a BASE62 ID: it has 10 characters, a BASE62 ID has 11");
        assertThatThrownBy(() -> IdFormat.BASE62.parse("000000000000"))
                .hasMessage("\"000000000000\" is not a BASE62 ID: it has 12 characters, a BASE62 ID has 11");
    }

    @Test
    void aBadCharacterIsRefusedWithItsIndex() {
        assertThatThrownBy(() -> IdFormat.BASE32.parse("00000U0000000"))
                .hasMessage("\"00000U0000000\" is not a BASE32 ID: the character 'U' at index 5 is not a Crockford"
                        + " base-32 digit (0-9, A-Z without U, either case)");
        assertThatThrownBy(() -> IdFormat.BASE32.parse("000000000000 "))
                .hasMessage("\"000000000000 \" is not a BASE32 ID: the character ' ' at index 12 is not a Crockford"
                        + " base-32 digit (0-9, A-Z without U, either case)");
        assertThatThrownBy(() -> IdFormat.BASE32.parse("00000000000é0"))
                .hasMessage("\"00000000000\\u00e90\" is not a BASE32 ID: the character '\\u00e9' at index 11 is not a"
                        + " Crockford base-32 digit (0-9, A-Z without U, either case)");
        assertThatThrownBy(() -> IdFormat.BASE62.parse("0000-000000"))
                .hasMessage("\"0000-000000\" is not a BASE62 ID: the character '-' at index 4 is not a base-62 digit"
                        + " (0-9, A-Z, a-z)");
        assertThatThrownBy(() -> IdFormat.DECIMAL.parse("12x4"))
                .hasMessage("\"12x4\" is not a DECIMAL ID: the character 'x' at index 2 is not a decimal digit");
        assertThatThrownBy(() -> IdFormat.DECIMAL.parse("+1"))
                .hasMessage("\"+1\" is not a DECIMAL ID: the character '+' at index 0 is not a decimal digit");
    }

    @Test
    void aValueAbove2To64Minus1IsRefused() {
        // G is 16: 2^64 and above.
        assertThatThrownBy(() -> IdFormat.BASE32.parse("G000000000000"))
                .hasMessage("\"G000000000000\" is not a BASE32 ID: it is above 2^64-1 (the first character must be"
                        + " 0-9 or A-F)");
        assertThatThrownBy(() -> IdFormat.BASE32.parse("zzzzzzzzzzzzz")).hasMessageContaining("above 2^64-1");
        // LygHa16AHYF is 2^64-1; one more, and the largest 11 characters.
        assertThatThrownBy(() -> IdFormat.BASE62.parse("LygHa16AHYG"))
                .hasMessage("\"LygHa16AHYG\" is not a BASE62 ID: it is above 2^64-1");
        assertThatThrownBy(() -> IdFormat.BASE62.parse("LygHa16AHZ0"))
                .hasMessage("\"LygHa16AHZ0\" is not a BASE62 ID: it is above 2^64-1");
        assertThatThrownBy(() -> IdFormat.BASE62.parse("zzzzzzzzzzz"))
                .hasMessage("\"zzzzzzzzzzz\" is not a BASE62 ID: it is above 2^64-1");
        assertThatThrownBy(() -> IdFormat.DECIMAL.parse("9223372036854775808"))
                .hasMessage("\"9223372036854775808\" is not a DECIMAL ID: it is outside [-9223372036854775808,"
                        + " 9223372036854775807]");
    }

    @Test
    void aFormatIsNamedInAnyCaseForConfiguration() {
        assertThat(IdFormat.of("base32")).isEqualTo(IdFormat.BASE32);
        assertThat(IdFormat.of("Base62")).isEqualTo(IdFormat.BASE62);
        assertThat(IdFormat.of("DECIMAL")).isEqualTo(IdFormat.DECIMAL);
        assertThatThrownBy(() -> IdFormat.of("base36")).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("\"base36\" is not an ID format; allowed: decimal, base32, base62");
        assertThatThrownBy(() -> IdFormat.of(null))
                .hasMessage("null is not an ID format; allowed: decimal, base32, base62");
    }
}
