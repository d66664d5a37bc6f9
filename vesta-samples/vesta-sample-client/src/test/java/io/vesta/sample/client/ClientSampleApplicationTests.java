package io.vesta.sample.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** The sample client against a central server started in the test on 127.0.0.1, standing in for vesta-server. */
@ExtendWith(OutputCaptureExtension.class)
class ClientSampleApplicationTests {

    @Test
    void printsIdsIssuedByTheServersMachineWithGenMethodOne(CapturedOutput output) {
        // Arguments, not default properties: they must win over the client's own application.properties.
        try (ConfigurableApplicationContext server = new SpringApplicationBuilder(Server.class).run("--vesta.mode=embedded",
                "--vesta.server.enabled=true", "--vesta.machine-id.value=930", "--server.address=127.0.0.1", "--server.port=0",
                "--spring.main.banner-mode=off")) {
            String url = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");

            new SpringApplicationBuilder(ClientSampleApplication.class).web(WebApplicationType.NONE)
                    .properties("spring.main.banner-mode=off")
                    // A server that has just started answers its first request slowly on a busy machine.
                    .run("--count=3", "--vesta.client.servers=" + url, "--vesta.client.timeout=20s").close();
        }

        assertThat(output.getOut().lines().filter(line -> line.contains(" -> Id[machine=930, ")
                && line.contains(", genMethod=1, "))).hasSize(3);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Server {
    }
}
