package io.vesta.sample.jpa;

import io.vesta.VestaId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** An order; Hibernate fills {@link #id} from the application's {@code IdService} when it is first saved. */
@Entity
@Table(name = "orders")
public class Order {

    @Id
    @VestaId
    private Long id;

    private String item;

    private int quantity;

    private Instant placedAt;

    protected Order() {
    }

    public Order(String item, int quantity, Instant placedAt) {
        this.item = item;
        this.quantity = quantity;
        this.placedAt = placedAt;
    }

    public Long getId() {
        return id;
    }

    public String getItem() {
        return item;
    }

    public int getQuantity() {
        return quantity;
    }

    public Instant getPlacedAt() {
        return placedAt;
    }
}
