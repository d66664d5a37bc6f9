package io.vesta.autoconfigure.publicid;

import io.vesta.InvalidSettingException;
import io.vesta.PublicIds;
import io.vesta.publicid.Ff1PublicIds;
import java.util.Base64;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * With {@code vesta.public-id.enabled=true}, the application's {@link PublicIds}: FF1 under the keys of
 * {@code vesta.public-id.keys}, checked at start-up (a bad key ID, a key that is not base 64 or not 16, 24 or 32
 * bytes, a current key that is not configured) with an {@link InvalidSettingException} that names the property and
 * shows a key only by its length. Enabled without {@code vesta-public-id} on the class path fails, rather than leave
 * public IDs off.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty("vesta.public-id.enabled")
@EnableConfigurationProperties(VestaPublicIdProperties.class)
public final class VestaPublicIdAutoConfiguration {

    static final String PREFIX = "vesta.public-id.";
    private static final String FF1_CLASS = "io.vesta.publicid.Ff1PublicIds";

    @Bean
    @ConditionalOnMissingBean
    PublicIds vestaPublicIds(VestaPublicIdProperties properties, ResourceLoader resourceLoader) {
        if (!ClassUtils.isPresent(FF1_CLASS, resourceLoader.getClassLoader())) {
            throw new InvalidSettingException(PREFIX + "enabled", true,
                    "false, or true with io.vesta:vesta-public-id on the class path",
                    "needs io.vesta:vesta-public-id (FF1 from Bouncy Castle), which is not on the class path");
        }
        return Ff1.build(properties);
    }

    /** Kept apart so that the configuration class loads without {@code vesta-public-id}. */
    private static final class Ff1 {

        static PublicIds build(VestaPublicIdProperties properties) {
            Ff1PublicIds.Builder builder = Ff1PublicIds.builder().settingsPrefix(PREFIX);
            for (Map.Entry<String, String> key : properties.getKeys().entrySet()) {
                String setting = PREFIX + "keys." + key.getKey();
                builder.key(keyId(setting, key.getKey()), decode(setting, key.getValue()));
            }
            if (properties.getCurrentKey() != null) {
                builder.currentKey(properties.getCurrentKey());
            }
            return builder.tweak(properties.getTweak() == null ? "" : properties.getTweak()).build();
        }

        private static int keyId(String setting, String name) {
            String allowed = "key IDs in [0, " + Ff1PublicIds.MAX_KEY_ID + "]";
            try {
                int id = Integer.parseInt(name.trim());
                if (id >= 0 && id <= Ff1PublicIds.MAX_KEY_ID) {
                    return id;
                }
            } catch (NumberFormatException e) {
                // refused below, as an out-of-range ID is
            }
            throw new InvalidSettingException(setting, "(a key, not shown)", allowed, "has a key ID out of range");
        }

        private static byte[] decode(String setting, String base64) {
            String allowed = "an AES key of 16, 24 or 32 bytes in base 64";
            if (base64 == null || base64.isBlank()) {
                throw new InvalidSettingException(setting, null, allowed);
            }
            try {
                return Base64.getDecoder().decode(base64.trim());
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException(setting, "(" + base64.trim().length() + " characters, not shown)",
                        allowed, "is not base 64");
            }
        }
    }
}
