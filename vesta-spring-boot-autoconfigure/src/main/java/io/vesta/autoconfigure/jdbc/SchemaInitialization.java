package io.vesta.autoconfigure.jdbc;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.util.ClassUtils;

import javax.sql.DataSource;

/**
 * Whether Vesta creates one of its tables at start-up, by a {@code vesta.*.initialize-schema} mode, with the
 * meaning Boot gives the mode for its own schemas: {@code embedded} creates it only on an embedded database
 * (H2, HSQLDB, Derby in memory, as Boot's {@code EmbeddedDatabaseConnection} decides), {@code always} on every
 * database, {@code never} on none.
 */
public final class SchemaInitialization {

    private static final String EMBEDDED_DATABASE_CONNECTION = "org.springframework.boot.jdbc.EmbeddedDatabaseConnection";

    private SchemaInitialization() {
    }

    /**
     * Whether to create the table on {@code dataSource}. Without spring-boot-jdbc on the classpath there is no way to
     * tell an embedded database, and {@code embedded} creates nothing.
     */
    public static boolean applies(DatabaseInitializationMode mode, DataSource dataSource) {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> ClassUtils.isPresent(EMBEDDED_DATABASE_CONNECTION, SchemaInitialization.class.getClassLoader())
                    && Embedded.isEmbedded(dataSource);
        };
    }

    /** Loaded only when spring-boot-jdbc is there. */
    private static final class Embedded {

        static boolean isEmbedded(DataSource dataSource) {
            return org.springframework.boot.jdbc.EmbeddedDatabaseConnection.isEmbedded(dataSource);
        }
    }
}
