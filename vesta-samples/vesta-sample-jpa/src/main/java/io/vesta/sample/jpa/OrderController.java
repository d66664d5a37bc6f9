package io.vesta.sample.jpa;

import io.vesta.DecodedId;
import io.vesta.IdService;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.time.Instant;

@RestController
@RequestMapping("/orders")
class OrderController {

    private final OrderRepository orders;

    private final IdService ids;

    OrderController(OrderRepository orders, IdService ids) {
        this.orders = orders;
        this.ids = ids;
    }

    @PostMapping
    ResponseEntity<OrderView> place(@RequestBody NewOrder request) {
        Order order = orders.save(new Order(request.item(), request.quantity(), Instant.now()));
        return ResponseEntity.created(URI.create("/orders/" + order.getId())).body(view(order));
    }

    @GetMapping("/{id}")
    ResponseEntity<OrderView> find(@PathVariable long id) {
        return ResponseEntity.of(orders.findById(id).map(this::view));
    }

    private OrderView view(Order order) {
        return new OrderView(order, ids.decode(order.getId()));
    }

    record NewOrder(String item, int quantity) {
    }

    record OrderView(Order order, DecodedId decodedId) {
    }
}
