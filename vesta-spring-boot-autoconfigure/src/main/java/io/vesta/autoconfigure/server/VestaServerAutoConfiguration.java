package io.vesta.autoconfigure.server;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdService;
import io.vesta.InvalidSettingException;
import io.vesta.PublicIds;
import io.vesta.autoconfigure.MachineIdGenMethod;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.machine.MachineIdProvider;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.core.Ordered;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import tools.jackson.databind.json.JsonMapper;

/**
 * A central Vesta server in a servlet web application with {@code vesta.server.enabled=true}: the REST API
 * ({@link GenIdServlet} and {@link VestaServerController}, genMethod 2), the Java client's batches
 * ({@link VestaBatchController}, genMethod 1) and, with {@code vesta.server.make-id-enabled=true},
 * {@link VestaMakeIdController}. Both
 * generators run under one machine ID of the server range ({@link ServerIdServices} says why that is safe),
 * from any {@code vesta.machine-id.strategy}: the provider is {@link VestaAutoConfiguration}'s, asked for the
 * server range by a {@link MachineIdGenMethod}. Ordered before {@link VestaAutoConfiguration} so that the
 * application's {@link IdService} is the server's REST generator rather than an embedded one, and so that the
 * machine-ID configuration sees the server's request.
 */
@AutoConfiguration(before = VestaAutoConfiguration.class,
        beforeName = "org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(value = RestController.class, name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnBooleanProperty("vesta.server.enabled")
@EnableConfigurationProperties({ VestaProperties.class, VestaServerProperties.class })
public final class VestaServerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    VestaServerExceptionHandler vestaServerExceptionHandler() {
        return new VestaServerExceptionHandler();
    }

    /**
     * The bearer tokens in front of /vesta/**, the paths there in normal form only, and the security headers; without
     * tokens configured it lets every path in normal form through. Refuses an
     * operator's endpoint that is enabled without admin tokens, which would leave it open to anyone.
     */
    @Bean
    @ConditionalOnMissingBean(name = "vestaServerTokenFilter")
    @ConditionalOnClass(JsonMapper.class)
    FilterRegistrationBean<ServerTokenFilter> vestaServerTokenFilter(VestaServerProperties server,
            ObjectProvider<JsonMapper> jsonMapper) {
        ServerTokenFilter filter = new ServerTokenFilter(server.getTokens(), server.getAdminTokens(),
                () -> jsonMapper.getIfAvailable(JsonMapper::shared));
        requireProtected("vesta.server.make-id-enabled", server.isMakeIdEnabled(), filter,
                "POST /vesta/makeid, which builds IDs from any fields,");
        requireProtected("vesta.server.lease-admin-enabled", server.isLeaseAdminEnabled(), filter,
                "DELETE /vesta/admin/leases/{machineId}, which ends machine-ID leases,");
        FilterRegistrationBean<ServerTokenFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("vestaServerTokenFilter");
        // Every path: the filter decides on the path the container routed, and writes the headers of every answer.
        registration.addUrlPatterns("/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 50);
        return registration;
    }

    /** The API's contract, an OpenAPI 3.1 document, at /vesta/openapi.yaml, open without a token. */
    @Bean
    @ConditionalOnMissingBean
    VestaOpenApiController vestaOpenApiController() {
        return new VestaOpenApiController();
    }

    /** HEAD under /vesta/ runs no handler: it issues no ID and uses up no segment number. */
    @Bean
    @ConditionalOnMissingBean(name = "vestaHeadRunsNoHandler")
    WebMvcConfigurer vestaHeadRunsNoHandler() {
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(new HeadRunsNoHandler()).addPathPatterns("/vesta/**");
            }
        };
    }

    /** Every error answer as problem details: the error page of the application, in place of Boot's. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "org.springframework.boot.webmvc.error.ErrorController", "tools.jackson.databind.json.JsonMapper" })
    static class ProblemDetailErrors {

        @Bean
        @ConditionalOnMissingBean(ErrorController.class)
        ServerErrorController vestaServerErrorController(ObjectProvider<JsonMapper> jsonMapper) {
            return new ServerErrorController(() -> jsonMapper.getIfAvailable(JsonMapper::shared));
        }
    }

    /** What Tomcat answers itself, before the application sees the request, as problem details too. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "org.apache.catalina.valves.ErrorReportValve",
            "org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory", "tools.jackson.databind.json.JsonMapper" })
    static class TomcatProblemDetails {

        @Bean
        @ConditionalOnMissingBean(name = "vestaTomcatErrorReport")
        WebServerFactoryCustomizer<TomcatServletWebServerFactory> vestaTomcatErrorReport() {
            return new ProblemDetailsErrorReportValve.Installer();
        }
    }

    /** With tokens configured, Actuator's health details only for callers with a token (or another principal). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
    static class HealthDetails {

        @Bean
        @ConditionalOnMissingBean(name = "vestaTokenHealthDetails")
        HealthEndpointGroupsPostProcessor vestaTokenHealthDetails(VestaServerProperties server) {
            return new TokenHealthDetails(!server.getTokens().isEmpty() || !server.getAdminTokens().isEmpty());
        }
    }

    private static void requireProtected(String property, boolean enabled, ServerTokenFilter filter, String endpoint) {
        if (enabled && !filter.adminProtected()) {
            throw new InvalidSettingException(property, true, "false, or true together with vesta.server.admin-tokens",
                    "would leave " + endpoint + " open to anyone who can reach the server: vesta.server.admin-tokens is"
                            + " not set");
        }
    }

    /** The IDs of a central server, unless {@code vesta.server.ids-enabled=false} makes it a server of segments only. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "vesta.server.ids-enabled", matchIfMissing = true)
    static class Ids {

        /**
         * Asks for the server range: {@link VestaAutoConfiguration}'s machine-ID provider serves both generators,
         * whose gen-methods (rest and central-server) draw from it.
         */
        @Bean
        @ConditionalOnMissingBean
        MachineIdGenMethod vestaMachineIdGenMethod(VestaProperties properties, Environment environment) {
            checkServerSettings(properties, environment);
            return new MachineIdGenMethod(GenMethod.REST);
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        ServerIdServices vestaServerIdServices(VestaProperties properties, Environment environment,
                MachineIdProvider machineIdProvider, ObjectProvider<TimeSource> timeSource,
                ObjectProvider<TimestampStore> timestampStore) {
            checkServerSettings(properties, environment);
            return ServerIdServices.create(properties, machineIdProvider, timeSource.getIfUnique(TimeSource::system),
                    timestampStore.getIfAvailable());
        }

        /** The application's IdService: the REST generator. Closed with {@link ServerIdServices}, which owns it. */
        @Bean(destroyMethod = "")
        @ConditionalOnMissingBean(IdService.class)
        EmbeddedIdService vestaIdService(ServerIdServices services) {
            return services.rest();
        }

        @Bean
        @ConditionalOnMissingBean
        VestaServerController vestaServerController(ServerIdServices services) {
            return new VestaServerController(services);
        }

        @Bean
        @ConditionalOnMissingBean
        VestaBatchController vestaBatchController(ServerIdServices services) {
            return new VestaBatchController(services);
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        IssueRateHistory vestaIssueRateHistory(ServerIdServices services) {
            return new IssueRateHistory(services);
        }

        @Bean
        @ConditionalOnMissingBean
        VestaStatusController vestaStatusController(ServerIdServices services, IssueRateHistory history,
                ObjectProvider<TimeSource> timeSource) {
            return new VestaStatusController(services, history, timeSource.getIfUnique(TimeSource::system));
        }

        @Bean
        @ConditionalOnMissingBean
        VestaLeaseController vestaLeaseController(MachineIdProvider machineIdProvider, VestaProperties properties,
                ServerIdServices services, VestaServerProperties server) {
            return new VestaLeaseController(machineIdProvider, properties, services, server.isLeaseAdminEnabled());
        }

        /** Answers 404 until there is a {@link PublicIds} bean ({@code vesta.public-id.enabled=true}). */
        @Bean
        @ConditionalOnMissingBean
        VestaPublicIdController vestaPublicIdController(ObjectProvider<PublicIds> publicIds, ServerIdServices services) {
            return new VestaPublicIdController(publicIds, services);
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBooleanProperty("vesta.server.make-id-enabled")
        VestaMakeIdController vestaMakeIdController(ServerIdServices services) {
            return new VestaMakeIdController(services);
        }

        /**
         * {@link GenIdServlet}, which writes its problem details with Jackson: like every other answer of the server,
         * whose controllers Spring MVC writes with it.
         */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(JsonMapper.class)
        static class GenIdServletConfiguration {

            @Bean
            @ConditionalOnMissingBean(name = "vestaGenIdServlet")
            ServletRegistrationBean<GenIdServlet> vestaGenIdServlet(ServerIdServices services,
                    ObjectProvider<JsonMapper> jsonMapper) {
                ServletRegistrationBean<GenIdServlet> registration = new ServletRegistrationBean<>(
                        new GenIdServlet(services, jsonMapper), GenIdServlet.PATH);
                registration.setName("vestaGenIdServlet");
                registration.setLoadOnStartup(1);
                return registration;
            }
        }
    }

    /**
     * A server of segments only ({@code vesta.server.ids-enabled=false}): no ID endpoints and no machine ID, so it
     * must serve segments, or it serves nothing.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "vesta.server.ids-enabled", havingValue = false)
    static class SegmentsOnly {

        SegmentsOnly(Environment environment) {
            if (!environment.getProperty("vesta.segment.enabled", Boolean.class, false)) {
                throw new InvalidSettingException("vesta.server.ids-enabled", false,
                        "true, or false together with vesta.segment.enabled=true (a server of segments only)",
                        "leaves the server nothing to serve: vesta.segment.enabled is not true");
            }
        }
    }

    /** Settings that contradict being a server; anything else vesta.* says applies to both generators. */
    private static void checkServerSettings(VestaProperties properties, Environment environment) {
        if (properties.getMode() == VestaProperties.Mode.CLIENT) {
            throw new InvalidSettingException("vesta.mode", "client",
                    "embedded: a central server issues IDs itself", "cannot be combined with vesta.server.enabled=true");
        }
        if (environment.containsProperty("vesta.gen-method") && properties.getGenMethod() == GenMethod.EMBEDDED) {
            throw new InvalidSettingException("vesta.gen-method", "embedded",
                    "unset: a central server issues rest IDs (genMethod 2) over REST and central-server IDs (genMethod 1)"
                            + " to the Java client, from vesta.machine-id.server-range",
                    "does not apply to a central server (vesta.server.enabled=true)");
        }
    }
}
