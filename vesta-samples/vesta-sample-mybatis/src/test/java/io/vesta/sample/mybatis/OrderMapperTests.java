package io.vesta.sample.mybatis;

import io.vesta.Id;
import io.vesta.IdService;
import org.junit.jupiter.api.Test;
import org.mybatis.spring.boot.test.autoconfigure.MybatisTest;
import org.springframework.beans.factory.annotation.Autowired;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @MybatisTest} slice: MyBatis, its mappers and an embedded database only. Vesta is part of the slice, so
 * the real mapper's INSERT gets its {@code @VestaId} from an {@link IdService} built from the application's
 * properties and the test's own machine ID.
 */
@MybatisTest(properties = "vesta.machine-id.value=7")
class OrderMapperTests {

    @Autowired
    private OrderMapper orders;

    @Autowired
    private IdService idService;

    @Test
    void anInsertedOrderGetsAnIdFromTheSlicesIdServiceUnderTheTestsMachineId() {
        Order order = new Order("green tea", 3, Instant.now().truncatedTo(ChronoUnit.MILLIS));

        orders.insert(order);

        assertThat(order.getId()).isNotNull();
        Id fields = idService.expId(order.getId());
        assertThat(fields.machine()).isEqualTo(7);
        assertThat(fields.type()).as("vesta.type=min-granularity from application.properties").isEqualTo(1);
        assertThat(orders.findById(order.getId())).get().extracting(Order::getItem).isEqualTo("green tea");
    }
}
