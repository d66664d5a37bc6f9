package io.vesta.autoconfigure.segment;

import io.vesta.segment.SegmentIdService;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /vesta/segment/{bizTag}} in a servlet web application that is a Vesta server
 * ({@code vesta.server.enabled=true}) and has a {@link SegmentIdService}.
 */
@AutoConfiguration(after = VestaSegmentAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(value = RestController.class, name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnBooleanProperty("vesta.server.enabled")
@ConditionalOnBean(SegmentIdService.class)
public final class VestaSegmentServerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SegmentController vestaSegmentController(SegmentIdService segments) {
        return new SegmentController(segments);
    }
}
