package io.vesta.sample.mybatis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample over real HTTP, as a browser or another service would use it. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class MyBatisSampleApplicationTests {

    @LocalServerPort
    private int port;

    @Test
    void anOrderPlacedOverHttpGetsAVestaIdThatReadsBackAndDecodes() {
        RestClient http = RestClient.create("http://127.0.0.1:" + port);
        Instant before = Instant.now();

        ResponseEntity<JsonNode> placed = http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .body("{\"item\":\"green tea\",\"quantity\":3}").retrieve().toEntity(JsonNode.class);
        assertThat(placed.getStatusCode()).isEqualTo(HttpStatusCode.valueOf(201));
        JsonNode order = placed.getBody().get("order");
        assertThat(order.get("id").isString()).as("IDs travel as strings (vesta.jackson.ids-as-strings)").isTrue();
        String id = order.get("id").asString();
        assertThat(placed.getHeaders().getLocation()).hasToString("/orders/" + id);
        JsonNode decoded = placed.getBody().get("decodedId");
        assertThat(decoded.get("idString").asString()).as("io.vesta.DecodedId, as the server shows it").isEqualTo(id);
        assertThat(decoded.get("machine").asLong()).isEqualTo(2);
        assertThat(decoded.get("type").asLong()).isEqualTo(1); // min-granularity
        assertThat(Instant.parse(decoded.get("instant").asString()))
                .isBetween(before.minusSeconds(1), Instant.now().plus(Duration.ofSeconds(1)));

        JsonNode found = http.get().uri("/orders/{id}", id).retrieve().body(JsonNode.class);
        assertThat(found.get("order").get("id").asString()).isEqualTo(id);
        assertThat(found.get("order").get("item").asString()).isEqualTo("green tea");
        assertThat(found.get("order").get("quantity").asInt()).isEqualTo(3);
        assertThat(found.get("decodedId")).isEqualTo(decoded);

        String second = http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .body("{\"item\":\"oolong\",\"quantity\":1}").retrieve().body(JsonNode.class).get("order").get("id")
                .asString();
        assertThat(Long.parseLong(second)).isGreaterThan(Long.parseLong(id));
    }

    @Test
    void anUnknownOrderIsNotFound() {
        ResponseEntity<Void> response = RestClient.create("http://127.0.0.1:" + port).get().uri("/orders/42").retrieve()
                .onStatus(status -> true, (request, reply) -> {
                }).toBodilessEntity();
        assertThat(response.getStatusCode()).isEqualTo(HttpStatusCode.valueOf(404));
    }
}
