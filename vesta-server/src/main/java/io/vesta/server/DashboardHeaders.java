package io.vesta.server;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * The headers of the dashboard's page ({@code /}, {@code /index.html}): a Content-Security-Policy that lets it load
 * its own script and style sheet and call this server's endpoints, and nothing else (no inline script or style, no
 * other origin, no plugin, no {@code <base>}), and that no other site may frame it; no referrer leaves it. The page
 * holds no inline script or style for the policy to forbid. {@code X-Content-Type-Options: nosniff} is on every answer
 * of the server already (the starter's token filter).
 */
final class DashboardHeaders extends OncePerRequestFilter {

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
            + " connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Referrer-Policy", "no-referrer");
        chain.doFilter(request, response);
    }
}
