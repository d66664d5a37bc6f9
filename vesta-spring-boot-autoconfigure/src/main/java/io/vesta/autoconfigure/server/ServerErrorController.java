package io.vesta.autoconfigure.server;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Controller;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.servlet.DispatcherServlet;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.function.Supplier;

/**
 * The error page of a central server ({@code server.error.path}, {@code /error}): every failure that no handler
 * answered itself, as RFC 9457 problem details, whatever the {@code Accept} header asks: Spring MVC's 404 for a path
 * no endpoint has, 405 for a method an endpoint does not take (with its {@code Allow}), 406 when {@code Accept}
 * excludes JSON, the container's own 400s that reach the error page, and 500s, whose detail says only where to look
 * (the log), never the exception. In place of Boot's {@code BasicErrorController}, whose answer is Boot's own JSON
 * or a Whitelabel page; a {@code GET /error} of its own is answered 404, as for any path without an endpoint.
 */
@Controller
public class ServerErrorController implements ErrorController {

    private final Supplier<JsonMapper> json;

    ServerErrorController(Supplier<JsonMapper> json) {
        this.json = json;
    }

    @RequestMapping("${server.error.path:${error.path:/error}}")
    public void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI) instanceof String original ? original
                : request.getRequestURI();
        int status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Integer code ? code : 404;
        HttpStatus known = HttpStatus.resolve(status);
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(known != null ? known : HttpStatus.INTERNAL_SERVER_ERROR,
                detail(request, status, uri));
        problem.setStatus(status);
        problem.setTitle(known != null ? known.getReasonPhrase() : "Error " + status);
        response.setHeader("X-Content-Type-Options", "nosniff");
        ProblemResponses.write(uri, response, problem, json.get());
    }

    private static String detail(HttpServletRequest request, int status, String uri) {
        String method = request.getMethod();
        if (status == 404) {
            return "No endpoint " + method + " " + uri;
        }
        if (status >= 500) {
            return "The server could not answer " + method + " " + uri + "; its log has the cause";
        }
        Object failure = request.getAttribute(DispatcherServlet.EXCEPTION_ATTRIBUTE);
        if (failure instanceof ErrorResponse answer && answer.getStatusCode().value() == status
                && answer.getBody().getDetail() != null) {
            return answer.getBody().getDetail();
        }
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        if (message instanceof String text && !text.isBlank()) {
            return text;
        }
        HttpStatus known = HttpStatus.resolve(status);
        return method + " " + uri + ": " + (known != null ? known.getReasonPhrase() : "error " + status);
    }
}
