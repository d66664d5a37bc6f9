package io.vesta.autoconfigure.server;

import org.apache.catalina.Host;
import org.apache.catalina.Valve;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.Writer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What Tomcat answers by itself, before or without the application's error page (a request line with an invalid
 * character, an invalid {@code %} escape, an encoded {@code /}), as problem details instead of Tomcat's HTML page.
 * The same conditions as Tomcat's own {@link ErrorReportValve}: an error status, nothing written yet, not reported yet.
 * The detail is Tomcat's message for a 4xx, none for a 5xx; never a stack trace.
 */
public class ProblemDetailsErrorReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        AtomicBoolean ioAllowed = new AtomicBoolean(false);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        HttpStatus known = HttpStatus.resolve(status);
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("title", known != null ? known.getReasonPhrase() : "Error " + status);
        problem.put("status", status);
        String message = response.getMessage();
        problem.put("detail", status < 500 && message != null && !message.isBlank() ? message
                : known != null ? known.getReasonPhrase() : "Error " + status);
        try {
            response.setContentType("application/problem+json");
            response.setCharacterEncoding("utf-8");
            response.setHeader("X-Content-Type-Options", "nosniff");
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(JsonMapper.shared().writeValueAsString(problem));
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // As Tomcat's own valve: the connection is gone or the answer has begun; nothing more can be said.
        }
    }

    /**
     * Puts the valve on the host in place of Tomcat's (and of the one Spring Boot adds), after Boot's customizer has
     * added its own.
     */
    static final class Installer implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            factory.addContextCustomizers(context -> {
                if (context.getParent() instanceof Host host) {
                    for (Valve valve : host.getPipeline().getValves()) {
                        if (valve instanceof ErrorReportValve) {
                            host.getPipeline().removeValve(valve);
                        }
                    }
                    host.getPipeline().addValve(new ProblemDetailsErrorReportValve());
                    if (host instanceof StandardHost standard) {
                        standard.setErrorReportValveClass(ProblemDetailsErrorReportValve.class.getName());
                    }
                }
            });
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }
}
