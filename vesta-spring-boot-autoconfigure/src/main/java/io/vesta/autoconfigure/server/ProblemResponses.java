package io.vesta.autoconfigure.server;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Problem details written outside Spring MVC ({@link GenIdServlet}, {@link ServerTokenFilter}) exactly as Spring MVC
 * writes the controllers' ({@link VestaServerExceptionHandler}), so a client sees one shape from every endpoint.
 */
final class ProblemResponses {

    private ProblemResponses() {
    }

    static void write(HttpServletRequest request, HttpServletResponse response, ProblemDetail problem, JsonMapper json)
            throws IOException {
        write(request.getRequestURI(), response, problem, json);
    }

    /** With {@code instance} the given request URI, as the client wrote it; none if it is no URI reference. */
    static void write(String requestUri, HttpServletResponse response, ProblemDetail problem, JsonMapper json)
            throws IOException {
        try {
            problem.setInstance(requestUri == null ? null : URI.create(requestUri));
        } catch (IllegalArgumentException e) {
            problem.setInstance(null);
        }
        byte[] body = json.writeValueAsBytes(members(problem));
        response.setStatus(problem.getStatus());
        response.setContentType("application/problem+json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /**
     * The problem's members as Spring MVC writes them: its own properties beside the standard ones, not nested, and
     * no {@code type} while it is about:blank.
     */
    static Map<String, Object> members(ProblemDetail problem) {
        Map<String, Object> members = new LinkedHashMap<>();
        URI type = problem.getType();
        if (type != null && !"about:blank".equals(type.toString())) {
            members.put("type", type.toString());
        }
        members.put("title", problem.getTitle());
        members.put("status", problem.getStatus());
        members.put("detail", problem.getDetail());
        members.put("instance", problem.getInstance() == null ? null : problem.getInstance().toString());
        if (problem.getProperties() != null) {
            members.putAll(problem.getProperties());
        }
        return members;
    }
}
