package io.vesta.autoconfigure.server;

import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdType;
import io.vesta.client.RemoteIdService;
import io.vesta.layout.IdCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A central server on a block of 8 machine IDs (a real server on a random port): its REST and central-server IDs
 * both spread over the block, and the Java client with default settings takes strictly increasing IDs from it.
 */
class BlockServerTests {

    private static final IdCodec CODEC = new IdCodec(IdCodec.DEFAULT_EPOCH);

    @TempDir
    Path dir;

    @Test
    void bothGeneratorsOfAServerIssueUnderItsBlockAndTheClientTakesThemInOrder() throws Exception {
        try (ConfigurableApplicationContext server = new SpringApplicationBuilder(App.class).properties(
                "vesta.server.enabled=true", "vesta.machine-id.value=932", "vesta.machine-id.block-size=8",
                "vesta.type=min-granularity", "vesta.time-store.file=" + dir.resolve("vesta-time"),
                "server.address=127.0.0.1", "server.port=0", "spring.main.banner-mode=off", "logging.level.root=warn").run()) {
            int port = server.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            ServerIdServices ids = server.getBean(ServerIdServices.class);
            assertThat(ids.rest().machineIdBlock()).hasToString("932-939");
            assertThat(ids.centralServer().machineIdBlock()).hasToString("932-939");

            JsonNode rest = Http.json(new Http(port).get("/vesta/genids?count=16"));
            long[] restIds = StreamSupport.stream(rest.get("ids").spliterator(), false).mapToLong(JsonNode::asLong).toArray();
            assertThat(Arrays.stream(restIds).map(id -> CODEC.expId(id).machine()).toArray())
                    .containsExactly(932, 933, 934, 935, 936, 937, 938, 939, 932, 933, 934, 935, 936, 937, 938, 939);
            assertThat(CODEC.expId(restIds[0]).genMethod()).isEqualTo(GenMethod.REST.code());

            try (RemoteIdService client = RemoteIdService.builder().servers("http://127.0.0.1:" + port)
                    .type(IdType.MIN_GRANULARITY).build()) {
                long[] fetched = new long[50_000];
                for (int i = 0; i < fetched.length; i++) {
                    fetched[i] = client.genId();
                }
                for (int i = 1; i < fetched.length; i++) {
                    assertThat(fetched[i]).as("ID %d", i).isGreaterThan(fetched[i - 1]);
                }
                Id first = CODEC.expId(fetched[0]);
                assertThat(first.genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
                assertThat(Arrays.stream(fetched).map(id -> CODEC.expId(id).machine()).distinct().sorted().toArray())
                        .containsExactly(IntStream.rangeClosed(932, 939).asLongStream().toArray());
            }
        }
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    static class App {
    }
}
