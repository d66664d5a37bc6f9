package io.vesta.autoconfigure.actuate;

import io.vesta.client.RemoteIdService;
import io.vesta.client.ServersUnavailableException.ServerFailure;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.List;

/**
 * A client's health as its last fetch left it: UP while a server answers; when none answered, UP on the fallback
 * (saying so) or, without one, DOWN with each server's error. Reads what the client knows and asks no server
 * itself: the client asks again after each backoff, and the first batch it gets brings the status back UP.
 */
public class VestaClientHealthIndicator extends AbstractHealthIndicator {

    private final RemoteIdService client;

    public VestaClientHealthIndicator(RemoteIdService client) {
        super("Vesta client health check failed");
        this.client = client;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("servers", client.servers()).withDetail("bufferedIds", client.bufferedIds())
                .withDetail("batchSize", client.batchSize());
        List<ServerFailure> failures = client.lastRoundFailures();
        if (failures.isEmpty()) {
            builder.up();
            return;
        }
        builder.withDetail("failures", failures.stream().map(ServerFailure::toString).toList());
        if (client.fallback().isPresent()) {
            builder.up().withDetail("fallback", "No Vesta server answers: IDs come from the embedded fallback"
                    + " (vesta.client.fallback=embedded) until one does");
        } else {
            builder.down().withDetail("reason", "No Vesta server answers: IDs already fetched (" + client.bufferedIds()
                    + ") are handed out while younger than vesta.client.max-id-age (" + client.maxIdAge().toMillis()
                    + " ms), then every call fails until a server answers (vesta.client.servers)");
        }
    }
}
