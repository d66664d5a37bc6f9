package io.vesta.springdata;

import io.vesta.IdFormat;
import io.vesta.VestaId;
import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/** The aggregates of the tests: a mutable one with a Long ID, an immutable record with a String ID and a wither. */
final class Entities {

    private Entities() {
    }

    @Table("orders")
    static class Order {

        @Id
        @VestaId
        private Long id;

        private String item;

        Order(String item) {
            this.item = item;
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
    }

    /** Numbered densely by the segment tag "invoices" instead of a Vesta ID. */
    @Table("invoices")
    static class Invoice {

        @Id
        @VestaId(segment = "invoices")
        private Long id;

        private int amount;

        Invoice(int amount) {
            this.amount = amount;
        }

        public Long getId() {
            return id;
        }

        public void setId(Long id) {
            this.id = id;
        }

        public int getAmount() {
            return amount;
        }

        public void setAmount(int amount) {
            this.amount = amount;
        }
    }

    @Table("tickets")
    record Ticket(@Id @VestaId String id, String title) {

        Ticket withId(String id) {
            return new Ticket(id, title);
        }
    }

    /** The same table, with the ID in 13 Crockford base-32 characters. */
    @Table("tickets")
    record ShortTicket(@Id @VestaId(format = IdFormat.BASE32) String id, String title) {

        ShortTicket withId(String id) {
            return new ShortTicket(id, title);
        }
    }

    /** Refused: a Long holds the ID itself, a format means nothing on it. */
    @Table("orders")
    record FormattedOrder(@Id @VestaId(format = IdFormat.BASE62) Long id, String item) {
    }

    /** Refused: segment numbers are not Vesta IDs. */
    @Table("tickets")
    record FormattedSegmentTicket(@Id @VestaId(format = IdFormat.BASE62, segment = "tickets") String id, String title) {
    }
}
