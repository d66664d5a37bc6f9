package io.vesta.autoconfigure.actuate;

import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.IssuingState;
import io.vesta.machine.MachineIdLease;
import io.vesta.time.TimeSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.time.Duration;
import java.time.Instant;

/**
 * For the liveness group: DOWN once the node has gone without a held machine ID for longer than
 * {@code vesta.machine-id.liveness-timeout}, so that a platform restarts a node that cannot get one back by itself (no
 * machine ID free, the store unreachable). Before that bound it stays UP: readiness ({@link VestaHealthIndicator}) is
 * DOWN and a leased strategy keeps claiming another machine ID. A node that holds its machine ID, or has a fixed one,
 * is always UP here.
 */
public class VestaLivenessHealthIndicator extends AbstractHealthIndicator {

    private final EmbeddedIdService idService;
    private final TimeSource timeSource;
    private final Duration timeout;

    public VestaLivenessHealthIndicator(EmbeddedIdService idService, TimeSource timeSource, Duration timeout) {
        super("Vesta liveness check failed");
        this.idService = idService;
        this.timeSource = timeSource;
        this.timeout = timeout;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        long now = timeSource.currentTimeMillis();
        MachineIdLease lease = idService.machineIdLease();
        if (idService.isClosed() || lease.isHeldAt(now)) {
            builder.up();
            return;
        }
        long since = lease.unheldSince();
        // A lease revoked without a time (never held) counts from now: it cannot be told how long it has been.
        long without = since == Long.MIN_VALUE ? 0 : Math.max(0, now - since);
        if (since != Long.MIN_VALUE) {
            builder.withDetail("machineIdNotHeldSince", Instant.ofEpochMilli(since));
        }
        if (without > timeout.toMillis()) {
            builder.down().withDetail("reason", "No machine ID has been held for " + without + " ms, longer than"
                    + " vesta.machine-id.liveness-timeout (" + timeout.toMillis() + " ms): restart the node. "
                    + IssuingState.problem(idService, now));
            return;
        }
        builder.up().withDetail("livenessTimeout", timeout.toString());
    }
}
