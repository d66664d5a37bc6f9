package io.vesta.sample.jpa;

import io.vesta.IdService;
import io.vesta.autoconfigure.test.AutoConfigureVesta;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;

/**
 * A {@code @WebMvcTest} slice, which has no Vesta of its own: {@link AutoConfigureVesta} brings the
 * {@link IdService} under the test's machine ID, and IDs as strings in JSON.
 */
@WebMvcTest(OrderController.class)
@AutoConfigureVesta(machineId = 9)
class OrderControllerTests {

    @Autowired
    private MockMvcTester mvc;

    @Autowired
    private IdService idService;

    @MockitoBean
    private OrderRepository orders;

    @Test
    void anOrderIsAnsweredWithItsIdAsAStringAndDecodedUnderTheTestsMachineId() {
        long id = idService.genId();
        Order order = new Order("green tea", 3, Instant.now());
        ReflectionTestUtils.setField(order, "id", id);
        given(orders.findById(id)).willReturn(Optional.of(order));

        assertThat(mvc.get().uri("/orders/{id}", id)).hasStatusOk().bodyJson()
                .hasPathSatisfying("$.order.id", value -> value.assertThat().isEqualTo(Long.toString(id)))
                .hasPathSatisfying("$.decodedId.machine", value -> value.assertThat().isEqualTo(9));
    }
}
