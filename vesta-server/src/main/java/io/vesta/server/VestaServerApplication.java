package io.vesta.server;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Vesta's central ID server. Everything it does is the starter's auto-configuration; this application only chooses
 * what is on the classpath (every machine-ID strategy with its drivers, Actuator, Prometheus) and the defaults of
 * {@code application.yml}, which any Boot property source overrides: an {@code application.yml} next to the jar,
 * environment variables, {@code --name=value} arguments.
 */
@SpringBootApplication
public class VestaServerApplication {

    public static void main(String[] args) {
        SpringApplication.run(VestaServerApplication.class, args);
    }
}
