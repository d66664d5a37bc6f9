package io.vesta.autoconfigure.server;

import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * {@code vesta.server.enabled=true} where {@link VestaServerAutoConfiguration} cannot apply: Spring MVC is missing,
 * or the application is no servlet web application. Without this the application would start as an embedded node,
 * and fail, if at all, on a machine-ID message that does not say the server is missing. Ordered before
 * {@link VestaAutoConfiguration}, so this failure comes first.
 */
@AutoConfiguration(before = VestaAutoConfiguration.class)
@ConditionalOnBooleanProperty("vesta.server.enabled")
@Conditional(VestaServerWithoutMvcAutoConfiguration.NoServletMvc.class)
public final class VestaServerWithoutMvcAutoConfiguration {

    static final String DISPATCHER_SERVLET = "org.springframework.web.servlet.DispatcherServlet";

    VestaServerWithoutMvcAutoConfiguration(ResourceLoader resourceLoader) {
        boolean mvcPresent = ClassUtils.isPresent(DISPATCHER_SERVLET, resourceLoader.getClassLoader());
        throw new InvalidSettingException("vesta.server.enabled", true,
                "false, or true in a servlet web application with Spring MVC (add org.springframework.boot:spring-boot-starter-webmvc)",
                mvcPresent ? "needs a servlet web application, and this one is not (see spring.main.web-application-type)"
                        : "needs Spring MVC, and it is not on the classpath: add org.springframework.boot:spring-boot-starter-webmvc");
    }

    static final class NoServletMvc extends NoneNestedConditions {

        NoServletMvc() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
        @ConditionalOnClass(name = { "org.springframework.web.bind.annotation.RestController", DISPATCHER_SERVLET })
        static final class ServletMvc {
        }
    }
}
