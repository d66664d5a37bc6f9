package io.vesta.autoconfigure.server;

import io.vesta.DecodedId;
import io.vesta.EmbeddedIdService;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code POST /vesta/makeid}: an ID built from given fields, for repairs and backfills. Only with
 * {@code vesta.server.make-id-enabled=true}. Fields come as query or form parameters; {@code time} and
 * {@code seq} are required, {@code machine}, {@code genMethod}, {@code type} and {@code version} default to this
 * server's REST generator's. The answer is the ID, decoded.
 */
@RestController
public class VestaMakeIdController {

    private static final Set<String> FIELDS = Set.of("version", "type", "genMethod", "time", "seq", "machine");

    private final EmbeddedIdService ids;

    public VestaMakeIdController(ServerIdServices services) {
        this.ids = services.rest();
    }

    @PostMapping(path = "/vesta/makeid", produces = MediaType.APPLICATION_JSON_VALUE)
    public DecodedId makeId(@RequestParam(required = false) String time, @RequestParam(required = false) String seq,
            @RequestParam(required = false) String machine, @RequestParam(required = false) String genMethod,
            @RequestParam(required = false) String type, @RequestParam(required = false) String version) {
        long id;
        try {
            id = ids.makeId(Parameters.field("version", version, ids.version()),
                    Parameters.field("type", type, ids.type().code()),
                    Parameters.field("genMethod", genMethod, ids.genMethod().code()),
                    Parameters.field("time", time, null),
                    Parameters.field("seq", seq, null),
                    Parameters.field("machine", machine, ids.machineId()));
        } catch (BadParameterException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            // The codec names the field first: "seq must be in [0, 1023], was 1024".
            String message = e.getMessage();
            String field = message == null ? "" : message.substring(0, Math.max(0, message.indexOf(' ')));
            Map<String, String> given = new HashMap<>();
            given.put("time", time);
            given.put("seq", seq);
            given.put("machine", machine);
            given.put("genMethod", genMethod);
            given.put("type", type);
            given.put("version", version);
            throw new BadParameterException(FIELDS.contains(field) ? field : null, given.get(field), message);
        }
        return DecodedId.of(id, ids.codec());
    }
}
