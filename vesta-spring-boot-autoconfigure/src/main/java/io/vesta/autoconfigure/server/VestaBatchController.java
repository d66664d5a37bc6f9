package io.vesta.autoconfigure.server;

import io.vesta.EmbeddedIdService;
import io.vesta.protocol.BatchProtocol;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /vesta/v1/ids?count=N}: a batch for the Java client ({@code io.vesta.client.RemoteIdService}) in
 * {@link BatchProtocol} version 1: N IDs of genMethod 1 as big-endian longs, the server's epoch in a header.
 */
@RestController
public class VestaBatchController {

    private final EmbeddedIdService ids;
    private final String epoch;

    public VestaBatchController(ServerIdServices services) {
        this.ids = services.centralServer();
        this.epoch = Long.toString(ids.epoch().toEpochMilli());
    }

    @GetMapping(path = BatchProtocol.PATH, produces = BatchProtocol.MEDIA_TYPE)
    public ResponseEntity<byte[]> batch(@RequestParam(name = BatchProtocol.COUNT_PARAMETER, required = false) String count) {
        byte[] body = BatchProtocol.encode(ids.genIds(Parameters.count(count)));
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_OCTET_STREAM)
                .header(BatchProtocol.EPOCH_HEADER, epoch)
                .body(body);
    }
}
