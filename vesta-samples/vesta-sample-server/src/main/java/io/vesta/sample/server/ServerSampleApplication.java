package io.vesta.sample.server;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A central Vesta server. Everything is configuration ({@code application.properties}): the starter and Spring MVC
 * on the classpath and {@code vesta.server.enabled=true} make the endpoints.
 */
@SpringBootApplication
public class ServerSampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(ServerSampleApplication.class, args);
    }
}
