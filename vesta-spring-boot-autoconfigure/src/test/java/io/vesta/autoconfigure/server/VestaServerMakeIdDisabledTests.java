package io.vesta.autoconfigure.server;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** Making IDs by hand is an operator's act: without vesta.server.make-id-enabled there is no such endpoint. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.server.enabled=true", "vesta.machine-id.value=1023", "server.address=127.0.0.1", "spring.main.banner-mode=off" })
class VestaServerMakeIdDisabledTests {

    @LocalServerPort
    private int port;

    @Test
    void makeidIsNotFoundUnlessEnabled() {
        Http http = new Http(port);

        assertThat(http.postForm("/vesta/makeid", "time=1&seq=1").statusCode()).isEqualTo(404);
        assertThat(http.get("/vesta/genid").statusCode()).isEqualTo(200);
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    static class App {
    }
}
