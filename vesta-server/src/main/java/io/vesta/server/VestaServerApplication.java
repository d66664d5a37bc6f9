package io.vesta.server;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * Vesta's central ID server. Everything it does is the starter's auto-configuration; this application only chooses
 * what is on the classpath (every machine-ID strategy with its drivers, Actuator, Prometheus), the defaults of
 * {@code application.yml}, which any Boot property source overrides (an {@code application.yml} next to the jar,
 * environment variables, {@code --name=value} arguments), and the headers of its dashboard's page.
 */
@SpringBootApplication
public class VestaServerApplication {

    public static void main(String[] args) {
        SpringApplication.run(VestaServerApplication.class, args);
    }

    @Bean
    FilterRegistrationBean<DashboardHeaders> vestaDashboardHeaders() {
        FilterRegistrationBean<DashboardHeaders> registration = new FilterRegistrationBean<>(new DashboardHeaders());
        // Paths as the container routes them: /index.html;x or /./index.html are this page too.
        registration.addUrlPatterns("/", "/index.html");
        return registration;
    }
}
