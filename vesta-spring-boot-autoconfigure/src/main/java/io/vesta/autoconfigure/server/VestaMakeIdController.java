package io.vesta.autoconfigure.server;

import io.vesta.DecodedId;
import io.vesta.EmbeddedIdService;
import io.vesta.layout.IdFieldOutOfRangeException;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /vesta/makeid}: an ID built from given fields, for repairs and backfills. Only with
 * {@code vesta.server.make-id-enabled=true}. Fields come as query or form parameters; {@code time} and
 * {@code seq} are required, {@code machine}, {@code genMethod}, {@code type} and {@code version} default to this
 * server's REST generator's. The answer is the ID, decoded.
 */
@RestController
public class VestaMakeIdController {

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
        } catch (IdFieldOutOfRangeException e) {
            String given = switch (e.field()) {
                case "time" -> time;
                case "seq" -> seq;
                case "machine" -> machine;
                case "genMethod" -> genMethod;
                case "type" -> type;
                case "version" -> version;
                default -> null;
            };
            throw new BadParameterException(e.field(), given, e.getMessage());
        }
        return DecodedId.of(id, ids.codec());
    }
}
