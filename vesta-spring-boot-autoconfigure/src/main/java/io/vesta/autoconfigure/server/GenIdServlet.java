package io.vesta.autoconfigure.server;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.EmbeddedIdService;
import io.vesta.IdFormat;
import io.vesta.SettingNames;
import io.vesta.machine.MachineIdUnavailableException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /vesta/genid}: the next REST ID, {@code {"id":N,"idString":"N"}}, from a plain servlet mapped to
 * that one path; with {@code ?format=base32} or {@code base62}, {@code idString} is in that form and a
 * {@code format} field names it. It is the request a server answers most, and there is nothing to negotiate: one
 * optional parameter, one media type, ASCII letters and digits that need no escaping. Spring MVC's work around a handler (mapping lookup,
 * parsing Accept twice, choosing a converter) is most of such a request's CPU: in {@code ServerLoadHarness}
 * runs on two cores shared with the load generator, this servlet served 1.6 times the requests per second of the
 * same method as a controller (33,000 against 20,000 at 16 connections). Every other endpoint stays in Spring
 * MVC. Its failures are the same problem details as the controllers' ({@link VestaServerExceptionHandler}),
 * written with the application's JSON mapper: they are rare, and their text (a detail, a reason) is not ours to
 * escape by hand.
 */
final class GenIdServlet extends HttpServlet {

    static final String PATH = "/vesta/genid";
    private static final long serialVersionUID = 1L;

    private final transient EmbeddedIdService ids;
    private final transient ObjectProvider<JsonMapper> jsonMapper;

    /** @param jsonMapper the application's JSON mapper for the problem details; Jackson's shared one without it */
    GenIdServlet(ServerIdServices services, ObjectProvider<JsonMapper> jsonMapper) {
        this.ids = services.rest();
        this.jsonMapper = jsonMapper;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        IdFormat format;
        try {
            format = Parameters.format(request.getParameter("format"));
        } catch (BadParameterException e) {
            writeProblem(request, response, VestaServerExceptionHandler.problem(e));
            return;
        }
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
        write(response, HttpServletResponse.SC_OK, "application/json", format == null ? answer(id) : answer(id, format));
    }

    /**
     * The headers of a GET and no ID: HTTP's HEAD is a GET without the body, and {@link HttpServlet#doHead} would run
     * {@link #doGet}, issuing an ID nobody receives.
     */
    @Override
    protected void doHead(HttpServletRequest request, HttpServletResponse response) {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType("application/json");
    }

    /**
     * {@code {"id":N,"idString":"N"}}. Written by hand because it is the answer a server gives most: a signed
     * decimal long is digits and at most a leading minus, which JSON takes as they are, inside a string or not.
     */
    static byte[] answer(long id) {
        String text = Long.toString(id);
        return ("{\"id\":" + text + ",\"idString\":\"" + text + "\"}").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * {@code {"id":N,"idString":"...","format":"base32"}}: the ID's string in {@code format}, whose characters are
     * ASCII letters and digits, which JSON takes as they are.
     */
    static byte[] answer(long id, IdFormat format) {
        return ("{\"id\":" + id + ",\"idString\":\"" + format.format(id) + "\",\"format\":\""
                + SettingNames.kebab(format)
                + "\"}").getBytes(StandardCharsets.US_ASCII);
    }

    private void writeProblem(HttpServletRequest request, HttpServletResponse response, ProblemDetail problem)
            throws IOException {
        ProblemResponses.write(request, response, problem, jsonMapper.getIfAvailable(JsonMapper::shared));
    }

    private static void write(HttpServletResponse response, int status, String contentType, byte[] body) throws IOException {
        response.setStatus(status);
        response.setContentType(contentType);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
