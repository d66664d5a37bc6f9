package io.vesta.springdata;

import org.springframework.core.Ordered;
import org.springframework.data.relational.core.mapping.event.BeforeConvertCallback;

/**
 * Spring Data JDBC: gives an aggregate root its Vesta ID before it is converted into a database change, so that the
 * change is an INSERT with the ID in it (Spring Data JDBC decides between insert and update after this callback).
 * A bean of this type in the application context is all it takes; the starter declares one.
 */
public final class VestaIdJdbcCallback implements BeforeConvertCallback<Object>, Ordered {

    private final VestaIdAssigner assigner;

    public VestaIdJdbcCallback(VestaIdAssigner assigner) {
        this.assigner = assigner;
    }

    @Override
    public Object onBeforeConvert(Object aggregate) {
        return assigner.assign(aggregate);
    }

    /** Before the application's own callbacks, which may want to see the ID. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 100;
    }
}
