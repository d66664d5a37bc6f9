package io.vesta.sample.mybatis;

import io.vesta.VestaId;

import java.time.Instant;

/**
 * An order. Vesta's interceptor fills {@code id} on insert while it is null because {@code @VestaId} marks it, and
 * {@code @VestaId} makes Jackson send it as a string.
 */
public class Order {

    @VestaId
    private Long id;

    private String item;

    private int quantity;

    private Instant placedAt;

    public Order() {
    }

    public Order(String item, int quantity, Instant placedAt) {
        this.item = item;
        this.quantity = quantity;
        this.placedAt = placedAt;
    }

    public Long getId() {
        return id;
    }

    public void setId(Long id) {
        this.id = id;
    }

    public String getItem() {
        return item;
    }

    public void setItem(String item) {
        this.item = item;
    }

    public int getQuantity() {
        return quantity;
    }

    public void setQuantity(int quantity) {
        this.quantity = quantity;
    }

    public Instant getPlacedAt() {
        return placedAt;
    }

    public void setPlacedAt(Instant placedAt) {
        this.placedAt = placedAt;
    }
}
