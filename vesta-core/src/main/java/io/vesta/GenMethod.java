package io.vesta;

/** How an ID was published: the genMethod field (bits 60-61). The fourth value, 3, is reserved. */
public enum GenMethod {

    /** Generated in the application's own process. */
    EMBEDDED,

    /** Issued by a central server to the Java client. */
    CENTRAL_SERVER,

    /** Issued by a central server over REST. */
    REST;

    /** The value stored in an ID's genMethod field. */
    public long code() {
        return ordinal();
    }
}
