package io.vesta.sample.jpa;

import io.vesta.Id;
import io.vesta.IdService;

import java.time.Instant;

/** What an ID says about itself: where, when and how it was made. */
public record DecodedId(long machine, long seq, long time, Instant issuedAt, long genMethod, long type, long version) {

    static DecodedId of(long id, IdService ids) {
        Id fields = ids.expId(id);
        return new DecodedId(fields.machine(), fields.seq(), fields.time(), ids.transTime(fields.time()),
                fields.genMethod(), fields.type(), fields.version());
    }
}
