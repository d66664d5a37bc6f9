package io.vesta.server;

import io.vesta.layout.IdCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * vesta-server as the pod {@code vesta-server-7} of a StatefulSet: with {@code VESTA_MACHINE_ID_STRATEGY} set to
 * {@code kubernetes-statefulset} in its environment, as a pod spec sets it, it issues under machine ID 924 + 7.
 */
class StatefulSetServerIT {

    @TempDir
    Path dir;

    @Test
    void thePodsOrdinalIsItsPlaceInTheServerRange() throws Exception {
        try (ServerJvm server = ServerJvm.start(dir, List.of("--logging.level.root=warn"), Map.of("HOSTNAME",
                "vesta-server-7", "VESTA_MACHINE_ID_STRATEGY", "kubernetes-statefulset"))) {
            Matcher id = Pattern.compile("\"id\":(\\d+)").matcher(server.get("/vesta/genid").body());
            assertThat(id.find()).isTrue();
            assertThat(new IdCodec(IdCodec.DEFAULT_EPOCH).expId(Long.parseLong(id.group(1))).machine()).isEqualTo(931);
            assertThat(server.get("/actuator/health").body())
                    .contains("kubernetes-statefulset (ordinal 7 from host name vesta-server-7)");
        }
    }
}
