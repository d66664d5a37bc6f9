package io.vesta.server;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.sql.SQLException;

/**
 * Reports a database the server cannot use at start-up, whatever needed it first (segments, the {@code db} machine-ID
 * leases): not reachable, refusing the credentials, missing, or, with the embedded defaults, an H2 file another process
 * has open. Ordered ahead of Vesta's and Boot's own analyzers, which would otherwise describe the bean that failed
 * ("no machine ID is available") rather than the database. Other SQL errors are left to them.
 */
class DatabaseFailureAnalyzer extends AbstractFailureAnalyzer<SQLException> implements Ordered {

    /** H2: the database file is open in another process ({@code DATABASE_ALREADY_OPEN_1}). */
    private static final int H2_DATABASE_IN_USE = 90020;
    /** H2: the database does not exist and may not be created ({@code DATABASE_NOT_FOUND_WITH_IF_EXISTS_1}). */
    private static final int H2_DATABASE_NOT_FOUND = 90146;

    private final Environment environment;

    /** Boot's failure analysis passes the application's environment. */
    DatabaseFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SQLException cause) {
        if (!cannotUseDatabase(cause)) {
            return null;
        }
        String url = environment.getProperty("spring.datasource.url", "(unset)");
        String description = "vesta-server cannot start: it cannot use the database " + url + " (spring.datasource.url).\n\n"
                + cause.getMessage() + "\n";
        if (cause.getErrorCode() == H2_DATABASE_IN_USE) {
            return new FailureAnalysis(description, "Another process has the H2 database open: most likely another"
                    + " vesta-server started on the same 'vesta.server.data-dir' (" + environment.getProperty("vesta.server.data-dir")
                    + "). Stop it, or give each server a data directory of its own; servers that share segments and"
                    + " leases share a PostgreSQL or MariaDB/MySQL database through 'spring.datasource.url'.", cause);
        }
        return new FailureAnalysis(description, "Check that the database of 'spring.datasource.url' is running and"
                + " reachable from this host, that it exists, and that 'spring.datasource.username' and"
                + " 'spring.datasource.password' are right. The server keeps segments in it (vesta.segment.enabled) and,"
                + " with vesta.machine-id.strategy=db, its machine-ID leases.", cause);
    }

    /**
     * A failure to reach or open the database, as opposed to an error in a statement: SQLState class 08 (connection),
     * 28 (authorization) or 3D (no such database), H2's own codes for a database in use or missing, or a network error.
     */
    private static boolean cannotUseDatabase(SQLException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                String state = sql.getSQLState();
                if (state != null && (state.startsWith("08") || state.startsWith("28") || state.startsWith("3D"))) {
                    return true;
                }
                if (sql.getErrorCode() == H2_DATABASE_IN_USE || sql.getErrorCode() == H2_DATABASE_NOT_FOUND) {
                    return true;
                }
            }
            if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 100;
    }
}
