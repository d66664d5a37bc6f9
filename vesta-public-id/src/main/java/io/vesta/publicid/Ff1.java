package io.vesta.publicid;

import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.fpe.FPEFF1Engine;
import org.bouncycastle.crypto.params.FPEParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * NIST SP 800-38G FF1 with AES under one key and one tweak, as Bouncy Castle implements it: our only contact with the
 * cipher, so that the standard's known-answer vectors run through exactly the wiring that {@link Ff1PublicIds} uses.
 * A numeral string is a {@code byte[]} of digits, each in {@code [0, radix)}.
 *
 * <p>Thread-safe: Bouncy Castle's engines keep their parameters between {@code init} and {@code processBlock}, so each
 * thread gets its own pair, initialised once; building one per call costs about a third more (the AES key schedule
 * and the engine).
 */
final class Ff1 {

    private final ThreadLocal<FPEFF1Engine> encrypting;
    private final ThreadLocal<FPEFF1Engine> decrypting;

    /**
     * @param key   an AES key of 16, 24 or 32 bytes (copied)
     * @param radix the digits' base, 2 to 256
     * @param tweak FF1's tweak, possibly empty (copied)
     */
    Ff1(byte[] key, int radix, byte[] tweak) {
        if (key.length != 16 && key.length != 24 && key.length != 32) {
            throw new IllegalArgumentException("an AES key has 16, 24 or 32 bytes, this one has " + key.length);
        }
        if (radix < 2 || radix > 256) {
            throw new IllegalArgumentException("radix must be in [2, 256], was " + radix);
        }
        FPEParameters parameters = new FPEParameters(new KeyParameter(key.clone()), radix, tweak.clone());
        this.encrypting = ThreadLocal.withInitial(() -> engine(true, parameters));
        this.decrypting = ThreadLocal.withInitial(() -> engine(false, parameters));
    }

    private static FPEFF1Engine engine(boolean encrypt, FPEParameters parameters) {
        FPEFF1Engine engine = new FPEFF1Engine(AESEngine.newInstance());
        engine.init(encrypt, parameters);
        return engine;
    }

    /** FF1.Encrypt of {@code digits}. */
    byte[] encrypt(byte[] digits) {
        return process(encrypting.get(), digits);
    }

    /** FF1.Decrypt of {@code digits}. */
    byte[] decrypt(byte[] digits) {
        return process(decrypting.get(), digits);
    }

    private static byte[] process(FPEFF1Engine engine, byte[] digits) {
        byte[] out = new byte[digits.length];
        engine.processBlock(digits, 0, digits.length, out, 0);
        return out;
    }
}
