package io.vesta.springdata;

import org.reactivestreams.Publisher;
import org.springframework.core.Ordered;
import org.springframework.data.r2dbc.mapping.event.BeforeConvertCallback;
import org.springframework.data.relational.core.sql.SqlIdentifier;
import reactor.core.publisher.Mono;

/**
 * Spring Data R2DBC: gives an entity its Vesta ID before it is converted for the INSERT (R2DBC has decided that the
 * entity is new, by its unset ID, before this callback). Taking an ID does not wait on I/O: at most for the next
 * millisecond when the current one's IDs are used up.
 */
public final class VestaIdR2dbcCallback implements BeforeConvertCallback<Object>, Ordered {

    private final VestaIdAssigner assigner;

    public VestaIdR2dbcCallback(VestaIdAssigner assigner) {
        this.assigner = assigner;
    }

    @Override
    public Publisher<Object> onBeforeConvert(Object entity, SqlIdentifier table) {
        return Mono.fromCallable(() -> assigner.assign(entity));
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }
}
