package io.vesta.autoconfigure.jackson;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** How Jackson writes Vesta IDs: {@code vesta.jackson.*}. */
@ConfigurationProperties("vesta.jackson")
public class VestaJacksonProperties {

    /** Whether @VestaId Long/long properties are written as JSON strings (and read from strings or numbers), for JavaScript clients that lose integers above 2^53. */
    private boolean idsAsStrings = false;

    public boolean isIdsAsStrings() {
        return idsAsStrings;
    }

    public void setIdsAsStrings(boolean idsAsStrings) {
        this.idsAsStrings = idsAsStrings;
    }
}
