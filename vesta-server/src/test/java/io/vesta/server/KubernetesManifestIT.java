package io.vesta.server;

import io.vesta.Id;
import io.vesta.layout.IdCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * vesta-server started as deploy/kubernetes/statefulset.yaml starts the pod {@code vesta-2}: the container's arguments
 * and environment read from the manifest, the host name the pod's name (what the kubelet sets, and what the
 * kubernetes-statefulset strategy reads), the data directory where the manifest mounts the pod's volume. Only what a
 * test on this machine must change is changed: the addresses (127.0.0.1 instead of every interface), the ports (free
 * ones instead of 8080 and 8081, mapped by the manifest's port names) and the volume (a temporary directory). The pod
 * must then be ready by the manifest's own probes, issue under machine ID 926 (the server range's start, 924, plus
 * ordinal 2), serve Prometheus where its annotations say, and stop on SIGTERM within its grace period.
 */
class KubernetesManifestIT {

    private static final Path STATEFUL_SET = Path.of("..", "deploy", "kubernetes", "statefulset.yaml");
    private static final Pattern IDS = Pattern.compile("\"ids\":\\[([0-9,]+)]");

    @TempDir
    Path dir;

    @Test
    void podVesta2OfTheStatefulSetIssuesUnderMachineId926() throws Exception {
        Map<String, Object> statefulSet = statefulSet();
        Map<String, Object> podSpec = map(map(map(statefulSet, "spec"), "template"), "spec");
        Map<String, Object> container = list(podSpec, "containers").stream().map(KubernetesManifestIT::asMap)
                .filter(c -> "vesta-server".equals(c.get("name"))).findFirst().orElseThrow();
        @SuppressWarnings("unchecked")
        List<String> args = (List<String>) container.getOrDefault("args", List.of());

        Map<String, String> manifestEnv = environment(container);
        assertThat(manifestEnv).containsEntry("SERVER_ADDRESS", "0.0.0.0").doesNotContainKey("MANAGEMENT_SERVER_ADDRESS");
        String dataMount = list(container, "volumeMounts").stream().map(KubernetesManifestIT::asMap)
                .filter(m -> "data".equals(m.get("name"))).map(m -> (String) m.get("mountPath")).findFirst().orElseThrow();
        assertThat(manifestEnv).as("the data directory is the pod's volume").containsEntry("VESTA_SERVER_DATA_DIR", dataMount);

        int managementPort = freePort();
        Map<String, String> env = new LinkedHashMap<>(manifestEnv);
        env.put("SERVER_ADDRESS", "127.0.0.1");
        env.put("MANAGEMENT_SERVER_ADDRESS", "127.0.0.1");
        env.put("MANAGEMENT_SERVER_PORT", Integer.toString(managementPort));
        env.put("VESTA_SERVER_DATA_DIR", dir.resolve("volume").toString());
        env.put("HOSTNAME", "vesta-2");

        try (ServerJvm pod = ServerJvm.launch(dir, args, env)) {
            // The manifest's container ports by name, as its probes and Services name them, to this test's ports.
            Map<String, Integer> ports = new LinkedHashMap<>();
            for (Object entry : list(container, "ports")) {
                Map<String, Object> port = asMap(entry);
                String containerPort = port.get("containerPort").toString();
                int local = containerPort.equals(manifestEnv.get("SERVER_PORT")) ? pod.port
                        : containerPort.equals(manifestEnv.get("MANAGEMENT_SERVER_PORT")) ? managementPort : -1;
                assertThat(local).as("container port %s is neither SERVER_PORT nor MANAGEMENT_SERVER_PORT", containerPort)
                        .isPositive();
                ports.put((String) port.get("name"), local);
            }

            pod.awaitUp(probePort(container, "startupProbe", ports), probePath(container, "startupProbe"),
                    Duration.ofSeconds(120));
            pod.awaitUp(probePort(container, "readinessProbe", ports), probePath(container, "readinessProbe"),
                    Duration.ofSeconds(60));
            assertThat(pod.get(probePort(container, "livenessProbe", ports), probePath(container, "livenessProbe"))
                    .statusCode()).isEqualTo(200);

            assertThat(pod.get("/vesta/status").body()).contains("\"machineIdFirst\":926")
                    .contains("kubernetes-statefulset (ordinal 2 from host name vesta-2)");
            Matcher ids = IDS.matcher(pod.get("/vesta/genids?count=100").body());
            assertThat(ids.find()).isTrue();
            IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);
            for (String id : ids.group(1).split(",")) {
                Id decoded = codec.expId(Long.parseLong(id));
                assertThat(decoded.machine()).as("machine ID of %s", id).isEqualTo(926);
            }

            Map<String, Object> annotations = map(map(map(map(statefulSet, "spec"), "template"), "metadata"), "annotations");
            int scrapePort = Integer.parseInt((String) annotations.get("prometheus.io/port"));
            assertThat(scrapePort).isEqualTo(Integer.parseInt(manifestEnv.get("MANAGEMENT_SERVER_PORT")));
            assertThat(pod.get(managementPort, (String) annotations.get("prometheus.io/path")).body())
                    .contains("vesta_issuing");

            long grace = ((Number) podSpec.get("terminationGracePeriodSeconds")).longValue();
            long stopping = System.nanoTime();
            assertThat(pod.stop()).as("exit code after SIGTERM:\n%s", pod.tail()).isIn(0, 143);
            assertThat(Duration.ofNanos(System.nanoTime() - stopping)).isLessThan(Duration.ofSeconds(grace));
            assertThat(Files.readString(dir.resolve("volume").resolve("time").resolve("vesta-machine-926-rest.mark")))
                    .contains("type=max-peak gen-method=rest");
        }
    }

    private static Map<String, Object> statefulSet() throws IOException {
        List<Map<String, Object>> objects = new ArrayList<>();
        for (Object document : new Yaml(new LoaderOptions()).loadAll(Files.readString(STATEFUL_SET))) {
            objects.add(asMap(document));
        }
        return objects.stream().filter(o -> "StatefulSet".equals(o.get("kind"))).findFirst().orElseThrow();
    }

    /**
     * The container's environment: its {@code env} values, and none from a Secret that is {@code optional} (absent
     * here). Anything else the test could not reproduce, so it fails rather than run the pod with less than the manifest
     * gives it.
     */
    private static Map<String, String> environment(Map<String, Object> container) {
        Map<String, String> env = new LinkedHashMap<>();
        for (Object entry : list(container, "env")) {
            Map<String, Object> variable = asMap(entry);
            assertThat(variable).as("env %s: only literal values", variable.get("name")).containsKey("value");
            env.put((String) variable.get("name"), (String) variable.get("value"));
        }
        for (Object entry : (List<?>) container.getOrDefault("envFrom", List.of())) {
            Map<String, Object> secret = map(asMap(entry), "secretRef");
            assertThat(secret.get("optional")).as("envFrom %s: only optional Secrets", secret.get("name")).isEqualTo(true);
        }
        return env;
    }

    private static String probePath(Map<String, Object> container, String probe) {
        return (String) map(map(container, probe), "httpGet").get("path");
    }

    private static int probePort(Map<String, Object> container, String probe, Map<String, Integer> ports) {
        Object port = map(map(container, probe), "httpGet").get("port");
        assertThat(ports).as("%s's port", probe).containsKey(port.toString());
        return ports.get(port.toString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        assertThat(parent).as("has %s", key).containsKey(key);
        return asMap(parent.get(key));
    }

    private static List<?> list(Map<String, Object> parent, String key) {
        assertThat(parent.get(key)).as("%s is a list", key).isInstanceOf(List.class);
        return (List<?>) parent.get(key);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Object value) {
        assertThat(value).isInstanceOf(Map.class);
        return (Map<String, Object>) value;
    }
}
