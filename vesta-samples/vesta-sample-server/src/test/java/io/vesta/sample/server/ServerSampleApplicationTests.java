package io.vesta.sample.server;

import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.protocol.BatchProtocol;
import io.vesta.layout.IdCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample as the README's curl calls use it, on a random port. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServerSampleApplicationTests {

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void timeStore(DynamicPropertyRegistry registry) {
        registry.add("vesta.time-store.file", () -> dir.resolve("vesta-time").toString());
    }

    @LocalServerPort
    private int port;

    private final HttpClient http = HttpClient.newHttpClient();
    private final IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);

    private <T> HttpResponse<T> send(HttpRequest.Builder request, HttpResponse.BodyHandler<T> body) throws Exception {
        return http.send(request.build(), body);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    @Test
    void genidIssuesRestIdsOfMachine924() throws Exception {
        String body = send(HttpRequest.newBuilder(uri("/vesta/genid")), HttpResponse.BodyHandlers.ofString()).body();

        Matcher id = Pattern.compile("\\{\"id\":(\\d+),\"idString\":\"(\\d+)\"}").matcher(body);
        assertThat(id.matches()).as(body).isTrue();
        assertThat(id.group(2)).isEqualTo(id.group(1));
        Id fields = codec.expId(Long.parseLong(id.group(1)));
        assertThat(fields.machine()).isEqualTo(924);
        assertThat(fields.genMethod()).isEqualTo(GenMethod.REST.code());
    }

    @Test
    void theJavaClientEndpointIssuesCentralServerIds() throws Exception {
        byte[] body = send(HttpRequest.newBuilder(uri(BatchProtocol.PATH + "?count=3")), HttpResponse.BodyHandlers.ofByteArray()).body();

        long[] ids = BatchProtocol.decode(body);
        assertThat(ids).hasSize(3);
        assertThat(codec.expId(ids[0]).genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
        assertThat(codec.expId(ids[0]).machine()).isEqualTo(924);
    }

    @Test
    void makeidIsOnInTheSample() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri("/vesta/makeid"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("time=300000000&seq=5")), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"machine\":924").contains("\"seq\":5").contains("\"time\":300000000");
    }
}
