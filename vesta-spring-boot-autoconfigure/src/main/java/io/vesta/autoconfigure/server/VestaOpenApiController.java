package io.vesta.autoconfigure.server;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * {@code GET /vesta/openapi.yaml}: the server's HTTP API as an OpenAPI 3.1 document, written by hand and reviewed like
 * the code it describes ({@code openapi.yaml} beside this class). A client in any language is generated from it;
 * vesta-server's contract test checks the running server against every path, parameter and response in it. Open
 * without a token, like the dashboard's page ({@link ServerTokenFilter}): it describes the API and holds no data.
 */
@RestController
public class VestaOpenApiController {

    /** Where the document is served. */
    public static final String PATH = "/vesta/openapi.yaml";
    /** Its media type: YAML's, registered by RFC 9512. */
    public static final String MEDIA_TYPE = "application/yaml";
    /** The document's classpath location. */
    public static final String RESOURCE = "/io/vesta/autoconfigure/server/openapi.yaml";

    private final byte[] document;

    public VestaOpenApiController() {
        this.document = document();
    }

    @GetMapping(path = PATH, produces = MEDIA_TYPE)
    public byte[] openApi() {
        return document;
    }

    /** The document's bytes, read once: it is part of the jar and never changes while the server runs. */
    public static byte[] document() {
        try (InputStream in = VestaOpenApiController.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
