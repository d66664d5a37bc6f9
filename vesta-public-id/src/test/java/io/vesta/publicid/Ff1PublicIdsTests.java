package io.vesta.publicid;

import io.vesta.IdType;
import io.vesta.InvalidSettingException;
import io.vesta.layout.IdLayout;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Public IDs: round trips, unrelated forms under two keys, refusals, rotation and the builder's checks. */
class Ff1PublicIdsTests {

    static final byte[] KEY_A = HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f");
    static final byte[] KEY_B = HexFormat.of().parseHex("f0e1d2c3b4a5968778695a4b3c2d1e0f00112233445566778899aabbccddeeff");
    static final String CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

    private final Ff1PublicIds publicIds = Ff1PublicIds.builder().key(1, KEY_A).build();

    /** An ID of {@code type} and {@code version} with random fields, as an IdService would make it. */
    static long randomId(SplittableRandom random, IdType type, long version) {
        IdLayout layout = IdLayout.of(type);
        int seqBits = layout.timeShift() - IdLayout.MACHINE_BITS;
        long time = random.nextLong(layout.maxTime() + 1);
        long seq = random.nextLong(layout.maxSeq() + 1);
        long constant = layout.constantBits(version, random.nextLong(IdLayout.MAX_GEN_METHOD + 1),
                random.nextLong(IdLayout.MAX_MACHINE + 1));
        return IdLayout.fromTimeSeq((time << seqBits) | seq, constant);
    }

    @Test
    void seededIdsOfBothTypesAndVersionsComeBack() throws Exception {
        // 2,000,000 IDs, 4,000,000 FF1 operations of about 4-7 us: the four kinds (type x version) run on threads of
        // their own, sharing the one PublicIds as a web server's threads do.
        int perKind = 500_000;
        List<Callable<Void>> kinds = new ArrayList<>();
        for (IdType type : IdType.values()) {
            for (long version = 0; version <= 1; version++) {
                long kindVersion = version;
                SplittableRandom random = new SplittableRandom(28 + 2L * type.ordinal() + version);
                kinds.add(() -> {
                    for (int i = 0; i < perKind; i++) {
                        long id = randomId(random, type, kindVersion);
                        String shown = publicIds.toPublic(id);
                        if (shown.length() != Ff1PublicIds.LENGTH || publicIds.fromPublic(shown) != id) {
                            throw new AssertionError(type + " version " + kindVersion + " ID "
                                    + Long.toUnsignedString(id) + " -> " + shown + " did not come back");
                        }
                    }
                    return null;
                });
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(kinds.size());
        try {
            for (Future<Void> kind : pool.invokeAll(kinds)) {
                kind.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theExtremesComeBackAndReadingIgnoresCase() {
        for (long id : new long[] { 0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 5 }) {
            String shown = publicIds.toPublic(id);
            assertThat(shown).matches("1[" + CROCKFORD + "]{16}");
            assertThat(publicIds.fromPublic(shown)).isEqualTo(id);
            assertThat(publicIds.fromPublic(shown.toLowerCase())).isEqualTo(id);
        }
    }

    @Test
    void consecutiveIdsLookUnrelated() {
        // Consecutive IDs of one second on one machine: what a public ID must not let anyone count.
        long first = IdLayout.fromTimeSeq(376188780L << 20, IdLayout.MAX_PEAK.constantBits(0, 0, 7));
        Set<String> seen = new HashSet<>();
        int longestSharedPrefix = 0;
        String previous = null;
        for (int seq = 0; seq < 10_000; seq++) {
            String shown = publicIds.toPublic(first + ((long) seq << IdLayout.MACHINE_BITS));
            assertThat(seen.add(shown)).isTrue();
            if (previous != null) {
                longestSharedPrefix = Math.max(longestSharedPrefix, sharedPrefix(previous, shown));
            }
            previous = shown;
        }
        // The key character, then chance: 10,000 pairs share 4 more characters with probability about 1e-2.
        assertThat(longestSharedPrefix).isLessThanOrEqualTo(1 + 4);
    }

    @Test
    void twoKeysGiveUnrelatedForms() {
        Ff1PublicIds a = Ff1PublicIds.builder().key(1, KEY_A).build();
        Ff1PublicIds b = Ff1PublicIds.builder().key(1, KEY_B).build();
        SplittableRandom random = new SplittableRandom(5);
        int n = 10_000;
        int equalCharacters = 0;
        Set<String> forms = new HashSet<>();
        for (int i = 0; i < n; i++) {
            long id = randomId(random, IdType.MIN_GRANULARITY, 0);
            String fromA = a.toPublic(id);
            String fromB = b.toPublic(id);
            forms.add(fromA);
            forms.add(fromB);
            for (int c = 1; c < Ff1PublicIds.LENGTH; c++) {
                equalCharacters += fromA.charAt(c) == fromB.charAt(c) ? 1 : 0;
            }
            assertThatThrownBy(() -> a.fromPublic(fromB)).hasMessageContaining("fails the check");
        }
        // Every form distinct; same-position characters agree at chance, 1 in 32 (mean 5,000, sd about 70).
        assertThat(forms).hasSize(2 * n);
        assertThat(equalCharacters).isBetween(5_000 - 400, 5_000 + 400);
    }

    @Test
    void aTweakMakesUnrelatedFormsWithTheSameKey() {
        Ff1PublicIds shop = Ff1PublicIds.builder().key(1, KEY_A).tweak("shop").build();
        Ff1PublicIds billing = Ff1PublicIds.builder().key(1, KEY_A).tweak("billing").build();
        long id = 2709772636019233692L;
        assertThat(shop.toPublic(id)).isNotEqualTo(billing.toPublic(id)).isNotEqualTo(publicIds.toPublic(id));
        assertThat(shop.fromPublic(shop.toPublic(id))).isEqualTo(id);
        assertThatThrownBy(() -> billing.fromPublic(shop.toPublic(id))).hasMessageContaining("fails the check");
    }

    @Test
    void everySingleCharacterChangeOfFiveHundredStringsIsRefused() {
        Ff1PublicIds keys = Ff1PublicIds.builder().key(1, KEY_A).key(2, KEY_B).currentKey(1).build();
        SplittableRandom random = new SplittableRandom(99);
        long tried = 0;
        long accepted = 0;
        for (int i = 0; i < 500; i++) {
            char[] shown = keys.toPublic(randomId(random, IdType.MAX_PEAK, 0)).toCharArray();
            for (int at = 0; at < shown.length; at++) {
                char original = shown[at];
                for (int d = 0; d < 32; d++) {
                    if (CROCKFORD.charAt(d) == original) {
                        continue;
                    }
                    shown[at] = CROCKFORD.charAt(d);
                    tried++;
                    try {
                        keys.fromPublic(new String(shown));
                        accepted++;
                    } catch (IllegalArgumentException refused) {
                        // as it should be
                    }
                }
                shown[at] = original;
            }
        }
        // 263,500 altered strings (FF1 costs microseconds: 10,000 strings would take a minute or more); each passes the
        // check with probability 2^-16, about 4 expected: a bound far above chance, far below what a broken check lets by.
        assertThat(tried).isEqualTo(500L * 17 * 31);
        assertThat(accepted).isLessThan(20);
    }

    @Test
    void aStringMadeWithAnotherKeyIsRefused() {
        Ff1PublicIds other = Ff1PublicIds.builder().key(1, KEY_B).build();
        String shown = other.toPublic(12345);
        assertThatThrownBy(() -> publicIds.fromPublic(shown)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("\"" + shown + "\" is not a public ID: it fails the check under key ID 1: mistyped or"
                        + " altered, or made with another key or tweak");
    }

    @Test
    void rotationReadsOldFormsAndWritesWithTheCurrentKey() {
        Ff1PublicIds before = Ff1PublicIds.builder().key(1, KEY_A).build();
        Ff1PublicIds after = Ff1PublicIds.builder().key(1, KEY_A).key(2, KEY_B).currentKey(2).build();
        long id = 2709772636019233692L;
        String old = before.toPublic(id);
        assertThat(old).startsWith("1");
        assertThat(after.fromPublic(old)).isEqualTo(id);
        String fresh = after.toPublic(id);
        assertThat(fresh).startsWith("2").isNotEqualTo(old);
        assertThat(after.fromPublic(fresh)).isEqualTo(id);
        assertThat(after.currentKey()).isEqualTo(2);
        assertThatThrownBy(() -> before.fromPublic(fresh)).hasMessage("\"" + fresh + "\" is not a public ID: its key"
                + " ID 2 ('2') is not configured; configured key IDs: 1");
    }

    @Test
    void sameKeyBytesUnderTwoKeyIdsStillBindTheKeyCharacter() {
        Ff1PublicIds twice = Ff1PublicIds.builder().key(1, KEY_A).key(2, KEY_A).currentKey(1).build();
        String shown = twice.toPublic(77);
        assertThatThrownBy(() -> twice.fromPublic("2" + shown.substring(1))).hasMessageContaining("fails the check");
    }

    @Test
    void badStringsAreRefusedNamingTheInputAndTheProblem() {
        assertThatThrownBy(() -> publicIds.fromPublic("1ABC")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("\"1ABC\" is not a public ID: it has 4 characters, a public ID has 17");
        assertThatThrownBy(() -> publicIds.fromPublic("1ABCDEFGH-KMNPQRS"))
                .hasMessage("\"1ABCDEFGH-KMNPQRS\" is not a public ID: the character '-' at index 9 is not a Crockford"
                        + " base-32 digit (0-9, A-Z without I L O U, either case)");
        assertThatThrownBy(() -> publicIds.fromPublic("1ABCDEFGHIKMNPQRS")).hasMessageContaining("'I' at index 9");
        assertThatThrownBy(() -> publicIds.fromPublic("1ABCDEFGH\u00e9KMNPQRS"))
                .hasMessageContaining("\"1ABCDEFGH\\u00e9KMNPQRS\"").hasMessageContaining("'\\u00e9' at index 9");
        assertThatThrownBy(() -> publicIds.fromPublic(null)).hasMessage("null is not a public ID: it is null");
        assertThatThrownBy(() -> publicIds.fromPublic("")).hasMessage("\"\" is not a public ID: it has 0 characters, a"
                + " public ID has 17");
    }

    @Test
    void theBuilderRefusesBadKeysNamingTheSettingButNeverTheKey() {
        assertThatThrownBy(() -> Ff1PublicIds.builder().settingsPrefix("vesta.public-id.").key(1, new byte[20]))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("vesta.public-id.keys.1=(a key of 20 bytes, not shown) has the wrong length; allowed: an"
                        + " AES key of 16, 24 or 32 bytes");
        assertThatThrownBy(() -> Ff1PublicIds.builder().settingsPrefix("vesta.public-id.").key(32, KEY_A))
                .hasMessage("vesta.public-id.keys.32=(a key) has a key ID out of range; allowed: key IDs in [0, 31]");
        assertThatThrownBy(() -> Ff1PublicIds.builder().settingsPrefix("vesta.public-id.").build())
                .hasMessageStartingWith("vesta.public-id.keys=(unset) is required; allowed: at least one AES key");
        assertThatThrownBy(() -> Ff1PublicIds.builder().settingsPrefix("vesta.public-id.").key(1, KEY_A).key(2, KEY_B)
                .build()).hasMessage("vesta.public-id.current-key=(unset) is required with several keys; allowed: one"
                        + " of the configured key IDs [1, 2]");
        assertThatThrownBy(() -> Ff1PublicIds.builder().settingsPrefix("vesta.public-id.").key(1, KEY_A).currentKey(3)
                .build()).hasMessage("vesta.public-id.current-key=3 names no configured key; allowed: one of the"
                        + " configured key IDs [1]");
        assertThat(Ff1PublicIds.builder().key(1, KEY_A).key(4, KEY_B).currentKey(4).build())
                .hasToString("Ff1PublicIds[keys 1, 4, current 4]");
    }

    @Test
    void theExamplesOfDocsPublicIdsHold() {
        Ff1PublicIds documented = Ff1PublicIds.builder()
                .key(1, Base64.getDecoder().decode("AAECAwQFBgcICQoLDA0ODw==")).build();
        assertThat(documented.toPublic(5006270189229047809L)).isEqualTo("1J0MVDH952BQS5F4J");
        assertThat(documented.toPublic(5006270189229047810L)).isEqualTo("1KM1YBED0ZXHW3QJS");
        assertThatThrownBy(() -> documented.fromPublic("9J0MVDH952BQS5F4J")).hasMessage("\"9J0MVDH952BQS5F4J\" is not"
                + " a public ID: its key ID 9 ('9') is not configured; configured key IDs: 1");
        assertThatThrownBy(() -> documented.fromPublic("1J0MVDH952BQS5F4K")).hasMessage("\"1J0MVDH952BQS5F4K\" is not"
                + " a public ID: it fails the check under key ID 1: mistyped or altered, or made with another key or"
                + " tweak");
    }

    private static int sharedPrefix(String a, String b) {
        int i = 0;
        while (i < a.length() && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }
}
