package io.vesta.autoconfigure.server;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.MediaType;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.HandlerMapping;

import java.util.Set;

/**
 * {@code HEAD} on an endpoint under {@code /vesta/} answers the headers a GET would have (status 200 and its
 * {@code Content-Type}) and runs no handler. Spring MVC answers a HEAD by running the GET handler and dropping the
 * body, so {@code HEAD /vesta/genids?count=100000} would issue 100,000 IDs that nobody receives, and a segment's HEAD
 * would use up numbers. The token check ({@link ServerTokenFilter}) comes first; parameters are not looked at, since
 * that is the handler's work.
 */
final class HeadRunsNoHandler implements HandlerInterceptor {

    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
        if (!"HEAD".equals(request.getMethod()) || !(handler instanceof HandlerMethod)) {
            return true;
        }
        response.setStatus(HttpServletResponse.SC_OK);
        if (request.getAttribute(HandlerMapping.PRODUCIBLE_MEDIA_TYPES_ATTRIBUTE) instanceof Set<?> types
                && types.iterator().hasNext() && types.iterator().next() instanceof MediaType type) {
            response.setContentType(type.toString());
        }
        return false;
    }
}
