package io.vesta.sample.jpa;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Orders stored with Spring Data JPA whose IDs Hibernate takes from Vesta ({@code @Id @VestaId}):
 * {@code POST /orders} places one, {@code GET /orders/{id}} reads it back; both answer with the decoded ID.
 */
@SpringBootApplication
public class JpaSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(JpaSampleApplication.class, args);
    }
}
