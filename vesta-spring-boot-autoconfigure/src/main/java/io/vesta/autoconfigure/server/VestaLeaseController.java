package io.vesta.autoconfigure.server;

import io.vesta.EmbeddedIdService;
import io.vesta.autoconfigure.MachineIdProperties;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.machine.MachineIdBlock;
import io.vesta.machine.MachineIdLeaseInfo;
import io.vesta.machine.MachineIdLeases;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.layout.IdLayout;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.time.Instant;
import java.util.List;

/**
 * The machine-ID leases of a shared store (strategies {@code db}, {@code redis}, {@code zookeeper} and {@code etcd}) for an
 * operator:
 * {@code GET /vesta/admin/leases} lists every machine ID of the server range (or {@code ?range=embedded}), and, with
 * {@code vesta.server.lease-admin-enabled=true}, {@code DELETE /vesta/admin/leases/{machineId}} ends a lease
 * ({@code ?force=true} for a live one) so that a new node can take the ID at once
 * ({@link MachineIdLeases#release}: never at the price of a repeated ID). Both are operator's endpoints: an admin
 * token ({@link ServerTokenFilter}); a forced release is logged with the fingerprint of the token that asked and the
 * remote address.
 */
@RestController
public class VestaLeaseController {

    static final String PATH = "/vesta/admin/leases";
    private static final Log log = LogFactory.getLog(VestaLeaseController.class);

    private final MachineIdProvider provider;
    private final VestaProperties properties;
    private final EmbeddedIdService ids;
    private final boolean releaseEnabled;

    public VestaLeaseController(MachineIdProvider provider, VestaProperties properties, ServerIdServices services,
            boolean releaseEnabled) {
        this.provider = provider;
        this.properties = properties;
        this.ids = services.rest();
        this.releaseEnabled = releaseEnabled;
    }

    @GetMapping(path = PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    public LeaseTable list(@RequestParam(required = false) String range) {
        MachineIdLeases leases = leases();
        MachineIdRange listed = range(range);
        List<Lease> rows = leases.list(listed).stream().map(Lease::of).toList();
        MachineIdBlock block = ids.machineIdBlock();
        return new LeaseTable(leases.describe(), listed.toString(), new Node(block.first(), block.last(), block.size()),
                releaseEnabled, Instant.now(), rows);
    }

    @DeleteMapping(path = PATH + "/{machineId}", produces = MediaType.APPLICATION_JSON_VALUE)
    public Outcome release(@PathVariable String machineId, @RequestParam(required = false) String force,
            HttpServletRequest request) {
        if (!releaseEnabled) {
            throw new NotFoundException("Ending leases is off: set vesta.server.lease-admin-enabled=true (with"
                    + " vesta.server.admin-tokens) to allow DELETE " + PATH + "/{machineId}");
        }
        long id = Parameters.field("machineId", machineId, null);
        if (id < 0 || id > IdLayout.MAX_MACHINE) {
            throw new BadParameterException("machineId", machineId, "machineId must be in [0, " + IdLayout.MAX_MACHINE
                    + "], was " + id);
        }
        boolean forced = force != null && !force.isBlank() && switch (force.trim()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new BadParameterException("force", force, "force must be true or false, was '" + force + "'");
        };
        if (forced) {
            // Who asked, for the operators who will wonder: the token's fingerprint (never the token) and the address.
            log.warn("Forced release of the lease on machine ID " + id + " asked by " + caller(request) + " from "
                    + request.getRemoteAddr());
        }
        MachineIdLeases.Released released;
        try {
            released = leases().release(id, forced);
        } catch (IllegalArgumentException e) {
            throw new NotFoundException(e.getMessage());
        }
        return new Outcome(released.ended(), released.detail(), Lease.of(released.before()), Lease.of(released.after()));
    }

    /** The caller as {@link ServerTokenFilter} names it: {@code admin token 1a2b3c4d}, by the token's fingerprint. */
    private static String caller(HttpServletRequest request) {
        return request.getUserPrincipal() == null ? "a caller without a token" : request.getUserPrincipal().getName();
    }

    private MachineIdLeases leases() {
        return provider.leases().orElseThrow(() -> new NotFoundException("Machine IDs come from " + provider.describe()
                + ", which has no shared lease store: leases are listed for vesta.machine-id.strategy db, redis, zookeeper and etcd"));
    }

    private MachineIdRange range(String range) {
        MachineIdProperties.Range configured;
        if (range == null || range.isBlank() || range.trim().equals("server")) {
            configured = properties.getMachineId().getServerRange();
        } else if (range.trim().equals("embedded")) {
            configured = properties.getMachineId().getEmbeddedRange();
        } else {
            throw new BadParameterException("range", range, "range must be server or embedded, was '" + range + "'");
        }
        return new MachineIdRange(configured.getMin(), configured.getMax());
    }

    /** A store's leases over a range, and this node's own machine IDs. */
    public record LeaseTable(String store, String range, Node node, boolean releaseEnabled, Instant readAt,
            List<Lease> leases) {
    }

    /** This server's machine-ID block. */
    public record Node(long first, long last, int size) {
    }

    /** One machine ID: {@code state} is live, expired or free. */
    public record Lease(long machineId, String state, boolean live, boolean self, String owner, Instant leaseExpiry,
            Instant highWater, long generation) {

        static Lease of(MachineIdLeaseInfo info) {
            return new Lease(info.machineId(), info.state().name().toLowerCase(java.util.Locale.ROOT), info.live(),
                    info.self(), info.owner(), info.leaseExpiry(), info.highWater(), info.generation());
        }
    }

    /** What a DELETE did: {@code ended} false when the lease had ended already and nothing was written. */
    public record Outcome(boolean ended, String detail, Lease before, Lease after) {
    }

    /** Answered 404 with the reason. */
    static final class NotFoundException extends RuntimeException {

        NotFoundException(String message) {
            super(message, null, false, false);
        }
    }
}
