package io.vesta.autoconfigure.server;

import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.IssuingState;
import io.vesta.machine.MachineIdBlock;
import io.vesta.time.TimeSource;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import java.time.Instant;
import java.util.List;

/**
 * {@code GET /vesta/status}: what the dashboard shows of a central server: its identity, whether it can issue now
 * (and why not), and the IDs it issued per second over the last minutes ({@link IssueRateHistory}). Read-only; behind
 * the same tokens as the ID endpoints.
 */
@RestController
public class VestaStatusController {

    private final ServerIdServices services;
    private final IssueRateHistory history;
    private final TimeSource timeSource;

    public VestaStatusController(ServerIdServices services, IssueRateHistory history, TimeSource timeSource) {
        this.services = services;
        this.history = history;
        this.timeSource = timeSource;
    }

    @GetMapping(path = "/vesta/status", produces = MediaType.APPLICATION_JSON_VALUE)
    public Status status() {
        EmbeddedIdService rest = services.rest();
        long now = timeSource.currentTimeMillis();
        String problem = IssuingState.problem(rest, now);
        if (problem == null) {
            problem = IssuingState.problem(services.centralServer(), now);
        }
        MachineIdBlock block = rest.machineIdBlock();
        long heldUntil = rest.machineIdLease().heldUntil();
        return new Status(problem == null ? "UP" : "DOWN", problem, block.first(), block.last(), block.size(),
                rest.machineIdSource(), rest.type().name(), rest.epoch(), rest.sequencerStrategy().name(),
                heldUntil == Long.MAX_VALUE ? null : Instant.ofEpochMilli(heldUntil), rest.lastIssuedTime(),
                rest.idsIssued(), services.centralServer().idsIssued(), Instant.ofEpochMilli(now), history.samples(),
                rest.timeFieldEnd(), rest.timeRemaining().toSeconds(), IssuingState.timeFieldWarning(rest),
                MachineIdFallback.of(rest, services.centralServer()));
    }

    /**
     * The server as the dashboard shows it; {@code reason} is null while it is UP, {@code timeFieldWarning} while more
     * than a year is left before the time field runs out ({@code timeFieldEnd}).
     */
    public record Status(String status, String reason, long machineIdFirst, long machineIdLast, int machineIdBlockSize,
            String machineIdSource, String type, Instant epoch, String sequencer, Instant leaseHeldUntil,
            Instant lastIssuedTime, long restIssued, long centralServerIssued, Instant now,
            List<IssueRateHistory.Sample> perSecond, Instant timeFieldEnd, long timeRemainingSeconds,
            String timeFieldWarning, MachineIdFallback machineIdFallback) {
    }

    /**
     * The fallback machine ID ({@code vesta.machine-id.fallback.value}) both generators share, whether each issues
     * under it now and how many IDs each issued under it; null without one. The two generators switch on their own
     * checks, so for a moment one may be on it and the other not.
     */
    public record MachineIdFallback(long first, long last, int size, boolean restActive, boolean centralServerActive,
            long restIssued, long centralServerIssued) {

        static MachineIdFallback of(EmbeddedIdService rest, EmbeddedIdService centralServer) {
            MachineIdBlock block = rest.machineIdFallback();
            return block == null ? null : new MachineIdFallback(block.first(), block.last(), block.size(),
                    rest.onFallback(), centralServer.onFallback(), rest.fallbackIdsIssued(),
                    centralServer.fallbackIdsIssued());
        }
    }
}
