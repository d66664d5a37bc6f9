package io.vesta.sample.mybatis;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Orders stored with a MyBatis mapper whose INSERT gets its ID from Vesta's interceptor, with no code in the
 * mapper: {@code POST /orders} places one, {@code GET /orders/{id}} reads it back; both answer with the decoded ID.
 */
@SpringBootApplication
public class MyBatisSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(MyBatisSampleApplication.class, args);
    }
}
