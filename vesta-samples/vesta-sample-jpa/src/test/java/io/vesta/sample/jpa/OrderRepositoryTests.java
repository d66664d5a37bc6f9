package io.vesta.sample.jpa;

import io.vesta.Id;
import io.vesta.IdService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @DataJpaTest} slice: JPA and an embedded database only, no web layer. Vesta is part of the slice, so the
 * {@code @VestaId} entity gets its ID from an {@link IdService} built from the application's properties and the
 * test's own machine ID.
 */
@DataJpaTest(properties = "vesta.machine-id.value=7")
class OrderRepositoryTests {

    @Autowired
    private OrderRepository orders;

    @Autowired
    private IdService idService;

    @Test
    void aSavedOrderGetsAnIdFromTheSlicesIdServiceUnderTheTestsMachineId() {
        Order saved = orders.saveAndFlush(new Order("green tea", 3, Instant.now()));

        assertThat(saved.getId()).isNotNull();
        Id fields = idService.expId(saved.getId());
        assertThat(fields.machine()).isEqualTo(7);
        assertThat(fields.type()).as("vesta.type=min-granularity from application.properties").isEqualTo(1);
        assertThat(orders.findById(saved.getId())).get().extracting(Order::getItem).isEqualTo("green tea");
    }
}
