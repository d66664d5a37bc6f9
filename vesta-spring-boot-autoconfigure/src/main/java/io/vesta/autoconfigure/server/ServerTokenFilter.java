package io.vesta.autoconfigure.server;

import io.vesta.InvalidSettingException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The gate in front of every request of a central server: bearer tokens for everything under {@code /vesta/}
 * ({@code vesta.server.tokens}, {@code vesta.server.admin-tokens}), paths under {@code /vesta/} in their normal form
 * only, and the security headers.
 *
 * <p><b>Which path.</b> Access is decided on the path the container routes: the servlet path and path info, which
 * Tomcat has decoded, cleared of {@code ;parameters} and normalised ({@code //}, {@code .}, {@code ..}) before it
 * chose the servlet, and never on the raw request URI, which is none of these. Spring MVC matches its handlers on
 * the raw URI again, segment by segment, decoding each and dropping its parameters; so that the two can never
 * disagree, a request whose routed path is under {@code /vesta/} must be written in normal form: its raw path,
 * percent-decoded, must be exactly the routed path, with no {@code ;}, and no percent-encoded letter, digit,
 * {@code -}, {@code .}, {@code _}, {@code ~} or {@code /} (RFC 3986 says those are never to be encoded). Anything
 * else is refused with 400 ({@code reason} {@code path-not-normalised}) whatever the token: {@code /vesta;x/genids},
 * {@code /%76esta/admin/leases}, {@code //vesta/genid}, {@code /./vesta/genid}, {@code /x/../vesta/genid}. The
 * decision compares case-insensitively, so {@code /VESTA/genid} or {@code /vesta/Admin/leases} (which Spring MVC
 * routes nowhere: it matches case and trailing slashes exactly) ask for the same token as their canonical path before
 * they get their 404.
 *
 * <p><b>Which token.</b> With neither property set every request passes: the documented trusted-network default.
 * {@value VestaOpenApiController#PATH}, the API's contract, takes no token whatever is set, like the dashboard's page:
 * it describes the API and holds no data; it is in normal form only, as every path under {@code /vesta/}.
 * With either set, the ID, segment and read-only endpoints take any of the tokens; {@code POST /vesta/makeid} and
 * everything under {@code /vesta/admin/}, reads included, take only an admin token. Missing or unknown: 401 with
 * {@code WWW-Authenticate: Bearer}; a client token on an operator's endpoint: 403; both as problem details. A request
 * with a valid token, on any path, carries a {@link Principal} ({@code getUserPrincipal()}, roles
 * {@value #CLIENT_ROLE} and, for an admin token, {@value #ADMIN_ROLE}) named by the token's fingerprint, so that
 * Actuator can show health details to it and an operator's act can be logged with who asked.
 *
 * <p>The filter keeps only SHA-256 digests of the tokens and compares the digest of the presented one with every
 * digest, without stopping at a match, by {@link MessageDigest#isEqual} (constant time for equal lengths, and digests
 * are all one length): neither the time an answer takes nor an error or a log line tells anything about a token.
 *
 * <p><b>Headers.</b> Every answer carries {@code X-Content-Type-Options: nosniff}; answers under {@code /vesta/}
 * also {@code Cache-Control: no-store} (no cache may hand an ID out twice), a {@code Content-Security-Policy} that
 * allows nothing, {@code X-Frame-Options: DENY} and {@code Referrer-Policy: no-referrer}.
 */
public final class ServerTokenFilter extends OncePerRequestFilter {

    /** The shortest token accepted: 16 characters, so that a token cannot be guessed by trying. */
    public static final int MIN_TOKEN_LENGTH = 16;
    public static final int MAX_TOKEN_LENGTH = 1024;
    /** The role of a request with a client or an admin token. */
    public static final String CLIENT_ROLE = "VESTA_CLIENT";
    /** The role of a request with an admin token. */
    public static final String ADMIN_ROLE = "VESTA_ADMIN";

    static final String API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

    private final List<byte[]> clientDigests;
    private final List<byte[]> adminDigests;
    private final Supplier<JsonMapper> json;

    /** @throws InvalidSettingException naming the property and index of a token that is too short or has spaces */
    public ServerTokenFilter(List<String> tokens, List<String> adminTokens, Supplier<JsonMapper> json) {
        this.clientDigests = digests("vesta.server.tokens", tokens);
        this.adminDigests = digests("vesta.server.admin-tokens", adminTokens);
        this.json = json;
    }

    /** Whether any token is configured, and so whether this filter refuses anything for want of a token. */
    public boolean enabled() {
        return !clientDigests.isEmpty() || !adminDigests.isEmpty();
    }

    /** Whether an operator's endpoint can be reached at all: admin tokens are configured. */
    public boolean adminProtected() {
        return !adminDigests.isEmpty();
    }

    /** What a request needs, from the most its routed path asks for. */
    enum Access {
        /** Outside {@code /vesta/}: not this filter's concern. */
        OPEN,
        /** The contract, {@value VestaOpenApiController#PATH}: in normal form, and no token. */
        PUBLIC,
        /** Any token. */
        CLIENT,
        /** An admin token. */
        ADMIN
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        response.setHeader("X-Content-Type-Options", "nosniff");
        String routed = routedPath(request);
        Access access = access(request, routed);
        if (access != Access.OPEN) {
            response.setHeader(HttpHeaders.CACHE_CONTROL, "no-store");
            response.setHeader("Content-Security-Policy", API_CONTENT_SECURITY_POLICY);
            response.setHeader("X-Frame-Options", "DENY");
            response.setHeader("Referrer-Policy", "no-referrer");
            if (!normalised(request, routed)) {
                notNormalised(request, response, routed);
                return;
            }
        }
        TokenPrincipal caller = caller(request);
        if (access == Access.OPEN || access == Access.PUBLIC || !enabled()) {
            chain.doFilter(caller == null ? request : caller.on(request), response);
            return;
        }
        boolean adminOnly = access == Access.ADMIN;
        if (caller == null) {
            unauthorized(request, response, token(request) != null ? "The bearer token is not one of this server's tokens"
                    : "A bearer token is required: send 'Authorization: Bearer <token>'"
                            + (adminOnly ? " with an admin token (vesta.server.admin-tokens)" : ""));
            return;
        }
        if (adminOnly && !caller.admin()) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.FORBIDDEN, request.getMethod() + " "
                    + routed + " is an operator's endpoint: it takes an admin token (vesta.server.admin-tokens),"
                    + " not a client token (vesta.server.tokens)");
            problem.setTitle("An admin token is required");
            problem.setProperty("reason", "admin-token-required");
            ProblemResponses.write(request, response, problem, json.get());
            return;
        }
        chain.doFilter(caller.on(request), response);
    }

    /** The path the container routed the request on: servlet path and path info, decoded and normalised. */
    static String routedPath(HttpServletRequest request) {
        String info = request.getPathInfo();
        return info == null ? request.getServletPath() : request.getServletPath() + info;
    }

    /**
     * The most either path asks for: the routed path, and the path info alone, which is what a servlet mapped to a
     * prefix (Spring MVC's under {@code spring.mvc.servlet.path}) routes on in turn.
     */
    static Access access(HttpServletRequest request, String routed) {
        Access access = access(routed);
        String info = request.getPathInfo();
        if (info != null) {
            Access inner = access(info);
            if (inner.compareTo(access) > 0) {
                access = inner;
            }
        }
        return access;
    }

    /**
     * {@code /vesta} and below: the operator's endpoints ({@code /vesta/admin/**}, {@code /vesta/makeid}), the contract
     * (exactly {@value VestaOpenApiController#PATH}), or the rest. Case-insensitive, so a path in another case is never
     * less protected than the canonical one.
     */
    static Access access(String path) {
        if (!path.regionMatches(true, 0, "/vesta", 0, 6) || (path.length() > 6 && path.charAt(6) != '/')) {
            return Access.OPEN;
        }
        if (path.equalsIgnoreCase(VestaOpenApiController.PATH)) {
            return Access.PUBLIC;
        }
        int end = path.indexOf('/', 7);
        String second = (end < 0 ? path.substring(Math.min(7, path.length())) : path.substring(7, end)).toLowerCase(Locale.ROOT);
        return second.equals("admin") || second.equals("makeid") ? Access.ADMIN : Access.CLIENT;
    }

    /**
     * Whether the raw path (without the context path), percent-decoded, is exactly the routed path, with no
     * {@code ;} and no percent-encoding of a character that must never be encoded (unreserved, or {@code /}).
     */
    static boolean normalised(HttpServletRequest request, String routed) {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        if (context != null && !context.isEmpty()) {
            if (!uri.startsWith(context)) {
                return false;
            }
            uri = uri.substring(context.length());
        }
        if (uri.indexOf(';') >= 0) {
            return false;
        }
        if (uri.indexOf('%') < 0) {
            return uri.equals(routed);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(uri.length());
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c != '%') {
                if (c > 0x7f) {
                    return false;
                }
                bytes.write(c);
                continue;
            }
            if (i + 2 >= uri.length()) {
                return false;
            }
            int high = Character.digit(uri.charAt(i + 1), 16);
            int low = Character.digit(uri.charAt(i + 2), 16);
            if (high < 0 || low < 0) {
                return false;
            }
            int b = high * 16 + low;
            if (b == '/' || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-'
                    || b == '.' || b == '_' || b == '~') {
                return false;
            }
            bytes.write(b);
            i += 2;
        }
        try {
            String decoded = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
            return decoded.equals(routed);
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private void notNormalised(HttpServletRequest request, HttpServletResponse response, String routed)
            throws IOException {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, "The path is not in normal form:"
                + " under /vesta/ this server takes no ';' parameters, no '//', '.' or '..' segments and no"
                + " percent-encoded letters, digits, '-', '.', '_', '~' or '/'. The container reads it as " + routed
                + "; send that.");
        problem.setTitle("Path not in normal form");
        problem.setProperty("reason", "path-not-normalised");
        ProblemResponses.write(request, response, problem, json.get());
    }

    /** The caller a valid token makes, or null: no token, or one that is not this server's. */
    private TokenPrincipal caller(HttpServletRequest request) {
        if (!enabled()) {
            return null;
        }
        String token = token(request);
        if (token == null) {
            return null;
        }
        byte[] presented = digest(token);
        boolean admin = matchesAny(presented, adminDigests);
        boolean client = matchesAny(presented, clientDigests);
        return admin || client ? new TokenPrincipal(fingerprint(presented), admin) : null;
    }

    /** The token of an {@code Authorization: Bearer} header, or null without one. */
    private static String token(HttpServletRequest request) {
        String header = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = header.substring(7).trim();
        return token.isEmpty() ? null : token;
    }

    /** The first 8 hex digits of the token's SHA-256 digest: enough to tell tokens apart in a log, never the token. */
    static String fingerprint(byte[] digest) {
        return HexFormat.of().formatHex(digest, 0, 4);
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

    /**
     * The caller of a request with a valid token: {@code admin token 1a2b3c4d} or {@code client token 1a2b3c4d},
     * by the token's fingerprint.
     */
    record TokenPrincipal(String fingerprint, boolean admin) implements Principal {

        @Override
        public String getName() {
            return (admin ? "admin" : "client") + " token " + fingerprint;
        }

        HttpServletRequest on(HttpServletRequest request) {
            TokenPrincipal principal = this;
            return new HttpServletRequestWrapper(request) {

                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return CLIENT_ROLE.equals(role) || (admin && ADMIN_ROLE.equals(role));
                }

                @Override
                public String getAuthType() {
                    return "Bearer";
                }
            };
        }
    }
}
