package io.vesta.client;

import java.net.URI;
import java.util.List;
import java.util.stream.Collectors;

/**
 * No central server issued IDs: every server failed, timed out, sent something that is not a valid batch, or is
 * backing off after such a failure. The message and {@link #failures()} list each server with its error.
 */
public class ServersUnavailableException extends IllegalStateException {

    private final List<ServerFailure> failures;

    public ServersUnavailableException(List<ServerFailure> failures) {
        super("No Vesta server issued IDs; " + failures.size() + (failures.size() == 1 ? " server" : " servers")
                + " tried: " + failures.stream().map(ServerFailure::toString).collect(Collectors.joining("; ")));
        this.failures = List.copyOf(failures);
    }

    /** Each server and why it did not issue IDs, in the order they were tried. */
    public List<ServerFailure> failures() {
        return failures;
    }

    /**
     * Why one server did not issue IDs.
     * @param server the server's base URL
     * @param error what went wrong on the last attempt
     * @param skipped true if the server was not asked this time because it is still backing off after {@code error}
     * @param backoffMillis how long the client leaves the server alone from now
     */
    public record ServerFailure(URI server, String error, boolean skipped, long backoffMillis) {

        @Override
        public String toString() {
            return server + (skipped ? " skipped, backing off " + backoffMillis + " ms more after: " + error
                    : " failed: " + error + " (next try in " + backoffMillis + " ms)");
        }
    }
}
