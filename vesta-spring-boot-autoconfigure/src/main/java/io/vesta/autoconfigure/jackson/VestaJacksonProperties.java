package io.vesta.autoconfigure.jackson;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** How Jackson writes Vesta IDs: {@code vesta.jackson.*}. */
@ConfigurationProperties("vesta.jackson")
public class VestaJacksonProperties {

    /** Whether @VestaId Long/long properties are written as JSON strings (and read from strings or numbers), for JavaScript clients that lose integers above 2^53. */
    private boolean idsAsStrings = false;

    /** The text form of @VestaId Long/long properties in JSON: decimal (the digits), base32 (13 Crockford base-32 characters) or base62 (11 characters); the last two sort as the IDs do. Setting it also writes IDs as strings. A property's own @VestaId(format = ...) wins. */
    private String idFormat = "decimal";

    public boolean isIdsAsStrings() {
        return idsAsStrings;
    }

    public void setIdsAsStrings(boolean idsAsStrings) {
        this.idsAsStrings = idsAsStrings;
    }

    public String getIdFormat() {
        return idFormat;
    }

    public void setIdFormat(String idFormat) {
        this.idFormat = idFormat;
    }
}
