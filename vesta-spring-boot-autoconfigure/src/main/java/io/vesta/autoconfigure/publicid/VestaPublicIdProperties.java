package io.vesta.autoconfigure.publicid;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Opaque public IDs: {@code vesta.public-id.*}. */
@ConfigurationProperties("vesta.public-id")
public class VestaPublicIdProperties {

    /** Whether to make the PublicIds bean (FF1, needs io.vesta:vesta-public-id), which @VestaId(publicId = true) properties in JSON and the server's /vesta/admin/public-ids use. */
    private boolean enabled = false;

    /** The AES keys by key ID (0 to 31): vesta.public-id.keys.1=<base 64 of 16, 24 or 32 random bytes>. Every key reads the public IDs it made; keep a retired key while its public IDs are in circulation. Secret: whoever holds a key can read and make public IDs. */
    private Map<String, String> keys = new LinkedHashMap<>();

    /** The key ID (0 to 31, one of vesta.public-id.keys) that makes new public IDs; required with several keys, the only key otherwise. */
    private Integer currentKey;

    /** A string of this application's (such as its name) mixed into every public ID, so that two applications with the same key make unrelated public IDs. Changing it changes every public ID, as a new key does. */
    private String tweak = "";

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Map<String, String> getKeys() {
        return keys;
    }

    public void setKeys(Map<String, String> keys) {
        this.keys = keys;
    }

    public Integer getCurrentKey() {
        return currentKey;
    }

    public void setCurrentKey(Integer currentKey) {
        this.currentKey = currentKey;
    }

    public String getTweak() {
        return tweak;
    }

    public void setTweak(String tweak) {
        this.tweak = tweak;
    }
}
