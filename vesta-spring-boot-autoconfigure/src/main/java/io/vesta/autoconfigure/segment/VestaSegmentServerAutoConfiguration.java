package io.vesta.autoconfigure.segment;

import io.vesta.InvalidSettingException;
import io.vesta.autoconfigure.server.VestaServerProperties;
import io.vesta.segment.SegmentIdService;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET} and {@code POST /vesta/segment/{bizTag}} in a servlet web application that is a Vesta server
 * ({@code vesta.server.enabled=true}) and has a {@link SegmentIdService}; with {@code vesta.segment.admin-enabled=true},
 * {@code POST /vesta/admin/segments/{bizTag}}, which exists only behind {@code vesta.server.admin-tokens}.
 */
@AutoConfiguration(after = VestaSegmentAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(value = RestController.class, name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnBooleanProperty("vesta.server.enabled")
@ConditionalOnBean(SegmentIdService.class)
@EnableConfigurationProperties(VestaServerProperties.class)
public final class VestaSegmentServerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SegmentController vestaSegmentController(SegmentIdService segments) {
        return new SegmentController(segments);
    }

    /**
     * Refuses to start with the endpoint enabled and no admin tokens, which would let anyone who can reach the server
     * create tags (as {@code vesta.server.lease-admin-enabled} and {@code make-id-enabled} do).
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty("vesta.segment.admin-enabled")
    SegmentAdminController vestaSegmentAdminController(SegmentIdService segments, VestaServerProperties server) {
        if (server.getAdminTokens() == null || server.getAdminTokens().isEmpty()) {
            throw new InvalidSettingException("vesta.segment.admin-enabled", true,
                    "false, or true together with vesta.server.admin-tokens",
                    "would leave POST /vesta/admin/segments/{bizTag}, which creates segment tags, open to anyone who can"
                            + " reach the server: vesta.server.admin-tokens is not set");
        }
        return new SegmentAdminController(segments);
    }
}
