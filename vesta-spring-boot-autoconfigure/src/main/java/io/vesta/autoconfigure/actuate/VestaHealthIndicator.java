package io.vesta.autoconfigure.actuate;

import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.IssuingState;
import io.vesta.machine.MachineIdLease;
import io.vesta.time.TimeSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Instant;
import java.util.Map;

/**
 * UP while the node can issue IDs; DOWN, with the reason, while its clock is too far back, its machine ID is not held or
 * its time field has run out. The details say when the time field runs out and how long is left, with a warning under a
 * year (the status stays UP: the node still issues). With a fallback machine ID configured, {@code machineIdFallback}
 * shows it, whether IDs are issued under it now and how many were; on the fallback the status stays UP too, as the
 * node still issues unique IDs.
 */
public class VestaHealthIndicator extends AbstractHealthIndicator {

    private final EmbeddedIdService idService;
    private final TimeSource timeSource;

    public VestaHealthIndicator(EmbeddedIdService idService, TimeSource timeSource) {
        super("Vesta health check failed");
        this.idService = idService;
        this.timeSource = timeSource;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("machineId", idService.machineId())
                .withDetail("machineIdBlock", VestaEndpoint.block(idService.machineIdBlock()))
                .withDetail("machineIdSource", idService.machineIdSource())
                .withDetail("type", idService.type())
                .withDetail("timeFieldEnd", idService.timeFieldEnd())
                .withDetail("timeRemainingSeconds", idService.timeRemaining().toSeconds());
        // Issuing under the fallback is UP: IDs are still issued, unique as long as the operator gave each node its own
        // fallback ID; the detail (and the vesta.machine-id.fallback.active gauge) is what an alert watches.
        Map<String, Object> fallback = VestaEndpoint.fallback(idService);
        if (fallback != null) {
            builder.withDetail("machineIdFallback", fallback);
        }
        String warning = IssuingState.timeFieldWarning(idService);
        if (warning != null) {
            builder.withDetail("timeFieldWarning", warning);
        }
        long now = timeSource.currentTimeMillis();
        MachineIdLease lease = idService.machineIdLease();
        if (lease.isHeldAt(now) && lease.heldUntil() != Long.MAX_VALUE) {
            builder.withDetail("leaseHeldUntil", Instant.ofEpochMilli(lease.heldUntil()));
        }
        String problem = IssuingState.problem(idService, now);
        if (problem != null) {
            builder.down().withDetail("reason", problem);
            return;
        }
        builder.up();
        // None before the first ID: a fresh node is UP (a readiness probe must let its first traffic in).
        if (idService.lastIssuedTime() != null) {
            builder.withDetail("lastIssuedTime", idService.lastIssuedTime());
        }
    }
}
