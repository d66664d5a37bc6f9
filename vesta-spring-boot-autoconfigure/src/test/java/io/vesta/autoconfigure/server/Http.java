package io.vesta.autoconfigure.server;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain HTTP against a server on 127.0.0.1, as any client in any language would send it. */
final class Http {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;

    Http(int port) {
        this(port, null);
    }

    /** Every request with {@code Authorization: Bearer token}; none with a null token. */
    Http(int port, String token) {
        this.base = "http://127.0.0.1:" + port;
        this.token = token;
    }

    HttpResponse<String> delete(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<byte[]> getBytes(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A form POST, as {@code curl -d time=1 -d seq=2} sends it. */
    HttpResponse<String> postForm(String path, String form) {
        return send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)), HttpResponse.BodyHandlers.ofString());
    }

    static JsonNode json(HttpResponse<String> response) {
        return JSON.readTree(response.body());
    }

    private <T> HttpResponse<T> send(HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) {
        try {
            if (token != null) {
                request.header("Authorization", "Bearer " + token);
            }
            return client.send(request.timeout(Duration.ofSeconds(30)).build(), body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
