package io.vesta.autoconfigure.server;

import io.vesta.InvalidSettingException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Bearer tokens in front of everything under {@code /vesta/} ({@code vesta.server.tokens},
 * {@code vesta.server.admin-tokens}). With neither set every request passes: the documented trusted-network default.
 * With either set, the ID, segment and read-only endpoints take any of the tokens, and the operator's endpoints
 * ({@code POST /vesta/makeid}, every other method than GET under {@code /vesta/admin/}) take only an admin token.
 *
 * <p>Missing or unknown: 401 with {@code WWW-Authenticate: Bearer}; a client token on an operator's endpoint: 403;
 * both as problem details. The filter keeps only SHA-256 digests of the tokens and compares the digest of the
 * presented one with every digest, without stopping at a match, by {@link MessageDigest#isEqual} (constant time
 * for equal lengths, and digests are all one length): neither the time an answer takes nor an error or a log line
 * tells anything about a token.
 */
public final class ServerTokenFilter extends OncePerRequestFilter {

    /** The shortest token accepted: 16 characters, so that a token cannot be guessed by trying. */
    public static final int MIN_TOKEN_LENGTH = 16;
    public static final int MAX_TOKEN_LENGTH = 1024;

    private final List<byte[]> clientDigests;
    private final List<byte[]> adminDigests;
    private final Supplier<JsonMapper> json;

    /** @throws InvalidSettingException naming the property and index of a token that is too short or has spaces */
    public ServerTokenFilter(List<String> tokens, List<String> adminTokens, Supplier<JsonMapper> json) {
        this.clientDigests = digests("vesta.server.tokens", tokens);
        this.adminDigests = digests("vesta.server.admin-tokens", adminTokens);
        this.json = json;
    }

    /** Whether any token is configured, and so whether this filter refuses anything at all. */
    public boolean enabled() {
        return !clientDigests.isEmpty() || !adminDigests.isEmpty();
    }

    /** Whether an operator's endpoint can be reached at all: admin tokens are configured. */
    public boolean adminProtected() {
        return !adminDigests.isEmpty();
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !enabled() || !path(request).startsWith("/vesta/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        boolean adminOnly = operatorEndpoint(request);
        byte[] presented = presented(request);
        if (presented == null) {
            unauthorized(request, response, "A bearer token is required: send 'Authorization: Bearer <token>'"
                    + (adminOnly ? " with an admin token (vesta.server.admin-tokens)" : ""));
            return;
        }
        boolean admin = matchesAny(presented, adminDigests);
        boolean client = matchesAny(presented, clientDigests);
        if (!admin && !client) {
            unauthorized(request, response, "The bearer token is not one of this server's tokens");
            return;
        }
        if (adminOnly && !admin) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.FORBIDDEN, request.getMethod() + " "
                    + path(request) + " is an operator's endpoint: it takes an admin token (vesta.server.admin-tokens),"
                    + " not a client token (vesta.server.tokens)");
            problem.setTitle("An admin token is required");
            problem.setProperty("reason", "admin-token-required");
            ProblemResponses.write(request, response, problem, json.get());
            return;
        }
        chain.doFilter(request, response);
    }

    /** {@code POST /vesta/makeid} and every change under {@code /vesta/admin/}. */
    static boolean operatorEndpoint(HttpServletRequest request) {
        String path = path(request);
        return path.equals("/vesta/makeid")
                || (path.startsWith("/vesta/admin/") && !"GET".equals(request.getMethod()) && !"HEAD".equals(request.getMethod()));
    }

    private static String path(HttpServletRequest request) {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        return context != null && !context.isEmpty() && uri.startsWith(context) ? uri.substring(context.length()) : uri;
    }

    /** The digest of the token of an {@code Authorization: Bearer} header, or null without one. */
    private static byte[] presented(HttpServletRequest request) {
        String header = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = header.substring(7).trim();
        return token.isEmpty() ? null : digest(token);
    }

    private static boolean matchesAny(byte[] presented, List<byte[]> digests) {
        boolean match = false;
        for (byte[] digest : digests) {
            match |= MessageDigest.isEqual(presented, digest);
        }
        return match;
    }

    private void unauthorized(HttpServletRequest request, HttpServletResponse response, String detail) throws IOException {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED, detail);
        problem.setTitle("A valid bearer token is required");
        problem.setProperty("reason", "token-required");
        response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"vesta\"");
        ProblemResponses.write(request, response, problem, json.get());
    }

    private static List<byte[]> digests(String property, List<String> tokens) {
        List<byte[]> digests = new ArrayList<>();
        if (tokens == null) {
            return digests;
        }
        for (int i = 0; i < tokens.size(); i++) {
            String token = tokens.get(i);
            String setting = property + "[" + i + "]";
            if (token == null || token.length() < MIN_TOKEN_LENGTH || token.length() > MAX_TOKEN_LENGTH
                    || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
                throw new InvalidSettingException(setting, "(not shown)", MIN_TOKEN_LENGTH + " to " + MAX_TOKEN_LENGTH
                        + " visible ASCII characters without spaces, such as the output of 'openssl rand -hex 32'",
                        "is not a usable token: it has " + (token == null ? 0 : token.length()) + " characters"
                                + (token != null && !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)
                                        ? " and some are spaces, control or non-ASCII characters" : ""));
            }
            digests.add(digest(token));
        }
        return List.copyOf(digests);
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }
}
