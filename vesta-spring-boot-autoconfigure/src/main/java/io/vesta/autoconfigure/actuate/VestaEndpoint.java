package io.vesta.autoconfigure.actuate;

import io.vesta.DecodedId;
import io.vesta.EmbeddedIdService;
import io.vesta.IdService;
import io.vesta.autoconfigure.IssuingState;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.machine.MachineIdBlock;
import io.vesta.segment.SegmentIdService;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code /actuator/vesta}: the node's identity and counters, and with segment mode on, each business tag's
 * segments ({@code segments}); {@code /actuator/vesta/{id}} decodes an ID.
 * Like Boot's own endpoints it is not exposed over HTTP until the application exposes it.
 */
@Endpoint(id = "vesta")
public class VestaEndpoint {

    private final IdService idService;
    private final VestaProperties properties;
    private final Supplier<SegmentIdService> segmentIdService;

    public VestaEndpoint(IdService idService, VestaProperties properties) {
        this(idService, properties, () -> null);
    }

    /** With the segment service looked up on each read, so that the endpoint works with and without one. */
    public VestaEndpoint(IdService idService, VestaProperties properties, ObjectProvider<SegmentIdService> segmentIdService) {
        this(idService, properties, segmentIdService::getIfUnique);
    }

    private VestaEndpoint(IdService idService, VestaProperties properties, Supplier<SegmentIdService> segmentIdService) {
        this.idService = idService;
        this.properties = properties;
        this.segmentIdService = segmentIdService;
    }

    /** A block of machine IDs as the endpoint and the health indicator show it: first, last and size. */
    static Map<String, Object> block(MachineIdBlock block) {
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("first", block.first());
        shown.put("last", block.last());
        shown.put("size", block.size());
        return shown;
    }

    /**
     * The fallback machine ID ({@code vesta.machine-id.fallback.value}) as the endpoint and the health indicator show
     * it: its block, whether IDs are issued under it now ({@code active}), since when by the service's clock while they are
     * ({@code since}), and how many were, in every spell on it ({@code idsIssued}); null without a fallback.
     */
    static Map<String, Object> fallback(EmbeddedIdService service) {
        MachineIdBlock fallback = service.machineIdFallback();
        if (fallback == null) {
            return null;
        }
        Map<String, Object> shown = block(fallback);
        shown.put("active", service.onFallback());
        service.onFallbackSince().ifPresent(since -> shown.put("since", since));
        shown.put("idsIssued", service.fallbackIdsIssued());
        return shown;
    }

    @ReadOperation
    public Map<String, Object> identity() {
        Map<String, Object> identity = new LinkedHashMap<>();
        identity.put("mode", properties.getMode());
        if (idService instanceof EmbeddedIdService embedded) {
            identity.put("type", embedded.type());
            identity.put("machineId", embedded.machineId());
            identity.put("machineIdBlock", block(embedded.machineIdBlock()));
            identity.put("machineIdSource", embedded.machineIdSource());
            Map<String, Object> fallback = fallback(embedded);
            if (fallback != null) {
                identity.put("machineIdFallback", fallback);
            }
            identity.put("genMethod", embedded.genMethod());
            identity.put("version", embedded.version());
            identity.put("epoch", embedded.epoch());
            identity.put("timeFieldEnd", embedded.timeFieldEnd());
            identity.put("timeRemainingSeconds", embedded.timeRemaining().toSeconds());
            String warning = IssuingState.timeFieldWarning(embedded);
            if (warning != null) {
                identity.put("timeFieldWarning", warning);
            }
            identity.put("sequencer", embedded.sequencerStrategy());
            identity.put("lastIssuedTime", embedded.lastIssuedTime());
            identity.put("idsIssued", embedded.idsIssued());
            identity.put("exhaustedWaits", embedded.exhaustedWaits());
            identity.put("clockBackwardSteps", embedded.clockBackwardSteps());
        } else {
            identity.put("type", properties.getType());
            identity.put("idService", idService.getClass().getName());
        }
        SegmentIdService segments = segmentIdService.get();
        if (segments != null) {
            Map<String, Object> segmentMode = new LinkedHashMap<>();
            segmentMode.put("table", segments.table());
            segmentMode.put("tags", segments.segments());
            identity.put("segments", segmentMode);
        }
        return identity;
    }

    /** An ID's fields and the instant its time field stands for, in the shape of every decoded ID Vesta shows. */
    @ReadOperation
    public DecodedId decode(@Selector String id) {
        return idService.decode(parse(id));
    }

    private static long parse(String id) {
        try {
            return id.startsWith("-") ? Long.parseLong(id) : Long.parseUnsignedLong(id);
        } catch (NumberFormatException e) {
            throw new InvalidEndpointRequestException("id must be a 64-bit integer (signed, or unsigned for version-1 IDs), was '"
                    + id + "'", "Invalid id");
        }
    }

}
