package io.vesta.autoconfigure.server;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.EmbeddedIdService;
import io.vesta.machine.MachineIdUnavailableException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * {@code GET /vesta/genid}: the next REST ID, {@code {"id":N,"idString":"N"}}, from a plain servlet mapped to
 * that one path. It is the request a server answers most, and there is nothing to negotiate: no parameter, one
 * media type, two decimal longs that need no escaping. Spring MVC's work around a handler (mapping lookup,
 * parsing Accept twice, choosing a converter) is most of such a request's CPU: in {@code ServerLoadHarness}
 * runs on two cores shared with the load generator, this servlet served 1.6 times the requests per second of the
 * same method as a controller (33,000 against 20,000 at 16 connections). Every other endpoint stays in Spring
 * MVC. Its failures are the same problem details as the controllers' ({@link VestaServerExceptionHandler}),
 * written here.
 */
final class GenIdServlet extends HttpServlet {

    static final String PATH = "/vesta/genid";
    private static final long serialVersionUID = 1L;

    private final transient EmbeddedIdService ids;

    GenIdServlet(ServerIdServices services) {
        this.ids = services.rest();
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long id;
        try {
            id = ids.genId();
        } catch (ClockMovedBackwardsException e) {
            response.setHeader(HttpHeaders.RETRY_AFTER, VestaServerExceptionHandler.retryAfterSeconds(e));
            writeProblem(request, response, VestaServerExceptionHandler.problem(e));
            return;
        } catch (MachineIdUnavailableException e) {
            writeProblem(request, response, VestaServerExceptionHandler.problem(e));
            return;
        }
        String text = Long.toString(id);
        write(response, HttpServletResponse.SC_OK, "application/json", "{\"id\":" + text + ",\"idString\":\"" + text + "\"}");
    }

    private static void writeProblem(HttpServletRequest request, HttpServletResponse response, ProblemDetail problem)
            throws IOException {
        problem.setInstance(URI.create(request.getRequestURI()));
        StringBuilder json = new StringBuilder(512).append('{');
        URI type = problem.getType();
        if (type != null && !"about:blank".equals(type.toString())) {
            member(json, "type", type.toString());
        }
        member(json, "title", problem.getTitle());
        member(json, "status", problem.getStatus());
        member(json, "detail", problem.getDetail());
        member(json, "instance", problem.getInstance().toString());
        Map<String, Object> properties = problem.getProperties();
        if (properties != null) {
            properties.forEach((name, value) -> member(json, name, value));
        }
        write(response, problem.getStatus(), "application/problem+json", json.append('}').toString());
    }

    private static void member(StringBuilder json, String name, Object value) {
        if (json.length() > 1) {
            json.append(',');
        }
        string(json, name).append(':');
        if (value instanceof Number || value instanceof Boolean) {
            json.append(value);
        } else if (value == null) {
            json.append("null");
        } else {
            string(json, value.toString());
        }
    }

    private static StringBuilder string(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"');
    }

    private static void write(HttpServletResponse response, int status, String contentType, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(contentType);
        response.setContentLength(bytes.length);
        response.getOutputStream().write(bytes);
    }
}
