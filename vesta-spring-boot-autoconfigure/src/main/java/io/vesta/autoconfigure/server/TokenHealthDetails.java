package io.vesta.autoconfigure.server;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.core.Ordered;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * With {@code vesta.server.tokens} or {@code admin-tokens} set, Actuator's health shows its components and details
 * (the disk path, the machine-ID source, every segment tag) only to a caller with a principal: a valid token
 * ({@link ServerTokenFilter} gives the request one) or whatever else the application authenticates with. Everyone
 * else, load balancers and probes included, gets the status alone. Within that, each group's own
 * {@code show-details} and {@code show-components} still apply. Without tokens the groups are left as they are.
 */
final class TokenHealthDetails implements HealthEndpointGroupsPostProcessor, Ordered {

    private final boolean tokensConfigured;

    TokenHealthDetails(boolean tokensConfigured) {
        this.tokensConfigured = tokensConfigured;
    }

    @Override
    public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
        if (!tokensConfigured) {
            return groups;
        }
        Map<String, HealthEndpointGroup> named = new LinkedHashMap<>();
        for (String name : groups.getNames()) {
            named.put(name, new ForCallersWithAToken(groups.get(name)));
        }
        return HealthEndpointGroups.of(new ForCallersWithAToken(groups.getPrimary()), named);
    }

    /** After Boot's own post-processors (the liveness and readiness groups), so that every group is covered. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    private record ForCallersWithAToken(HealthEndpointGroup group) implements HealthEndpointGroup {

        @Override
        public boolean isMember(String name) {
            return group.isMember(name);
        }

        @Override
        public boolean showComponents(SecurityContext context) {
            return context.getPrincipal() != null && group.showComponents(context);
        }

        @Override
        public boolean showDetails(SecurityContext context) {
            return context.getPrincipal() != null && group.showDetails(context);
        }

        @Override
        public StatusAggregator getStatusAggregator() {
            return group.getStatusAggregator();
        }

        @Override
        public HttpCodeStatusMapper getHttpCodeStatusMapper() {
            return group.getHttpCodeStatusMapper();
        }

        @Override
        public AdditionalHealthEndpointPath getAdditionalPath() {
            return group.getAdditionalPath();
        }
    }
}
