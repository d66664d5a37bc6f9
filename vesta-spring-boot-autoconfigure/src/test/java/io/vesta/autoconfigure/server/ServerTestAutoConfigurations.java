package io.vesta.autoconfigure.server;

import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.client.VestaClientAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration;
import org.springframework.context.annotation.Configuration;

/**
 * What a Vesta server or client application needs and nothing more: Tomcat, Spring MVC, JSON, and Vesta's own
 * auto-configurations. The test classpath also holds the optional integrations (JPA, MyBatis, JDBC) that would
 * otherwise start a database for every server these tests run.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({ PropertyPlaceholderAutoConfiguration.class, TomcatServletWebServerAutoConfiguration.class,
        DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class, ErrorMvcAutoConfiguration.class,
        HttpMessageConvertersAutoConfiguration.class, JacksonAutoConfiguration.class, VestaAutoConfiguration.class,
        VestaServerAutoConfiguration.class, VestaClientAutoConfiguration.class })
class ServerTestAutoConfigurations {
}
