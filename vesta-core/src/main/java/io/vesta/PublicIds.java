package io.vesta;

/**
 * Opaque public forms of Vesta IDs, for everything shown outside: a keyed, reversible permutation that hides what an
 * ID tells (when, where and in which order it was made, and how many were made between two IDs) from whoever does
 * not hold the key. {@code io.vesta.publicid.Ff1PublicIds} ({@code vesta-public-id}) implements it with NIST SP
 * 800-38G FF1; the adapters (Jackson's {@code @VestaId(publicId = true)}, the server's conversion endpoint) need only
 * this interface. It is not authentication: a public ID is a name, not a permission.
 *
 * <p>Implementations are thread-safe.
 */
public interface PublicIds {

    /** The public form of {@code id}, made with the current key; every 64-bit value, version-1 (negative) ones too. */
    String toPublic(long id);

    /**
     * The ID whose public form is {@code publicId}, under whichever configured key made it.
     * @throws IllegalArgumentException naming the input and what is wrong (length, a character, an unknown key,
     *         a failed check: tampered, or made with another key), and never the key
     */
    long fromPublic(CharSequence publicId);

    /**
     * The refusal of {@code input} that {@link #fromPublic} throws: {@code "<input>" is not a public ID: <problem>},
     * the input escaped (anything outside printable ASCII as a {@code \}{@code uXXXX} escape, cut after 160
     * characters), so that implementations word their errors alike and a log shows what was sent.
     */
    static IllegalArgumentException refused(CharSequence input, String problem) {
        String shown = input == null ? "null" : "\"" + BizTagFormat.escape(input.toString()) + "\"";
        return new IllegalArgumentException(shown + " is not a public ID: " + problem);
    }
}
