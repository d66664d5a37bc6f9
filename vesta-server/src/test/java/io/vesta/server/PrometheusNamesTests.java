package io.vesta.server;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vesta.autoconfigure.actuate.VestaClientMetrics;
import io.vesta.client.RemoteIdService;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.vesta.server.LeaseTakeover.get;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alerting rules (deploy/prometheus/vesta-rules.yml) and the Grafana dashboard (deploy/grafana/vesta.json) name
 * only metrics and labels a live server exports: a misspelt or renamed meter would otherwise leave an alert that never
 * fires and a panel that stays empty, which nothing else notices. The server runs on a leased machine ID (the db
 * strategy on its H2 database) with a fallback machine ID, so that the lease and fallback gauges exist, issues IDs of
 * both generators, loads a segment tag and answers one refusal; the client's meters come from {@link VestaClientMetrics} bound to a Prometheus registry of this
 * test, over a client that fetched a batch from the server (a server is no client). {@code job} and {@code instance}
 * are added by Prometheus at the scrape.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class PrometheusNamesTests {

    private static final Path DEPLOY = Path.of("..", "deploy");
    private static final Set<String> SCRAPE_LABELS = Set.of("job", "instance");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][\\w:]*)(?:\\{(.*)})?\\s");
    private static final Pattern SAMPLE_LABEL = Pattern.compile("([a-zA-Z_]\\w*)=\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern TEMPLATE_LABEL = Pattern.compile("\\$labels\\.(\\w+)");
    private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*(\\w+)\\s*}}");

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        LeaseTakeover.dbStrategy(registry, dir);
        // A fallback machine ID, so that its meters exist (a node without one has none): never used, the store answers.
        registry.add("vesta.machine-id.server-range.max", () -> "1015");
        registry.add("vesta.machine-id.fallback.value", () -> "1016");
    }

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    /** Metric name to the label names its series carry, from the server's scrape and the client's. */
    private final Map<String, Set<String>> exported = new TreeMap<>();

    @BeforeEach
    void scrapeALiveServer() throws Exception {
        assertThat(get(port, "/vesta/genids?count=5").statusCode()).isEqualTo(200);
        assertThat(get(port, "/vesta/genids?count=0").statusCode()).as("a refusal").isEqualTo(400);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            // Each test's server is the same cached context: the tag's row is made once (H2's MERGE).
            statement.execute("MERGE INTO vesta_segment (biz_tag, max_id, step, description) KEY (biz_tag)"
                    + " VALUES ('orders', 1, 1000, 'test')");
        }
        assertThat(get(port, "/vesta/segment/orders").statusCode()).isEqualTo(200);
        // The GC pause timer is registered at the first collection this JVM reports.
        System.gc();
        PrometheusMeterRegistry clientRegistry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (RemoteIdService client = RemoteIdService.builder().servers("http://127.0.0.1:" + port).build()) {
            new VestaClientMetrics(client).bindTo(clientRegistry);
            client.genId();
            read(clientRegistry.scrape());
        }
        var scrape = get(port, "/actuator/prometheus");
        assertThat(scrape.statusCode()).isEqualTo(200);
        read(scrape.body());
        assertThat(exported).as("the scrape").containsKeys("vesta_ids_issued_total", "vesta_lease_remaining_seconds",
                "vesta_segment_remaining", "vesta_client_batches_fetched_total", "jvm_gc_pause_seconds_count");
    }

    @Test
    void everyAlertingRuleNamesExportedMetricsAndLabels() throws IOException {
        Map<String, String> expressions = new LinkedHashMap<>();
        Map<String, String> templates = new LinkedHashMap<>();
        for (Map<String, Object> group : list(rules().get("groups"))) {
            for (Map<String, Object> rule : list(group.get("rules"))) {
                String name = group.get("name") + "/" + rule.get("alert") + " " + rule.get("labels");
                expressions.put(name, (String) rule.get("expr"));
                templates.put(name, String.valueOf(rule.get("annotations")));
            }
        }

        assertThat(expressions).hasSizeGreaterThanOrEqualTo(12);
        assertThat(unknownNames(expressions, templates, TEMPLATE_LABEL)).as("names in %s that the server does not export",
                DEPLOY.resolve("prometheus/vesta-rules.yml")).isEmpty();
    }

    @Test
    void everyDashboardPanelAndVariableNamesExportedMetricsAndLabels() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DEPLOY.resolve("grafana/vesta.json")));
        Map<String, String> expressions = new LinkedHashMap<>();
        Map<String, String> legends = new LinkedHashMap<>();
        for (JsonNode panel : panels(dashboard)) {
            for (JsonNode target : panel.path("targets")) {
                String name = panel.path("title").asString() + " " + target.path("refId").asString();
                expressions.put(name, target.path("expr").asString());
                legends.put(name, target.path("legendFormat").asString());
            }
        }
        Map<String, PromQlNames> variables = new LinkedHashMap<>();
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asString().equals("query")) {
                variables.put("variable " + variable.path("name").asString(),
                        PromQlNames.ofVariableQuery(variable.path("query").path("query").asString()));
            }
        }

        assertThat(expressions).hasSizeGreaterThanOrEqualTo(20);
        assertThat(variables).isNotEmpty();
        List<String> unknown = unknownNames(expressions, legends, LEGEND_LABEL);
        variables.forEach((name, names) -> unknown.addAll(unknownNames(name, names, Set.of())));
        assertThat(unknown).as("names in %s that the server does not export", DEPLOY.resolve("grafana/vesta.json")).isEmpty();
    }

    /**
     * Each expression's metrics must be exported; its labels, and those its templates print, must be carried by one of
     * its metrics or be added by Prometheus.
     */
    private List<String> unknownNames(Map<String, String> expressions, Map<String, String> templates, Pattern templateLabel) {
        List<String> unknown = new ArrayList<>();
        expressions.forEach((name, expression) -> {
            PromQlNames names = PromQlNames.of(expression);
            assertThat(names.metrics()).as("metrics of %s: %s", name, expression).isNotEmpty();
            Set<String> printed = new TreeSet<>();
            Matcher label = templateLabel.matcher(templates.get(name));
            while (label.find()) {
                printed.add(label.group(1));
            }
            unknown.addAll(unknownNames(name, names, printed));
        });
        return unknown;
    }

    private List<String> unknownNames(String name, PromQlNames names, Set<String> printedLabels) {
        List<String> unknown = new ArrayList<>();
        Set<String> carried = new TreeSet<>(SCRAPE_LABELS);
        for (String metric : names.metrics()) {
            if (exported.containsKey(metric)) {
                carried.addAll(exported.get(metric));
            } else {
                unknown.add(name + ": metric " + metric);
            }
        }
        Set<String> labels = new TreeSet<>(names.labels());
        labels.addAll(printedLabels);
        for (String label : labels) {
            if (!carried.contains(label)) {
                unknown.add(name + ": label " + label + " (not on " + names.metrics() + ")");
            }
        }
        return unknown;
    }

    private void read(String scrape) {
        for (String line : scrape.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (line.startsWith("#") || !sample.find()) {
                continue;
            }
            Set<String> labels = exported.computeIfAbsent(sample.group(1), metric -> new TreeSet<>());
            if (sample.group(2) != null) {
                Matcher label = SAMPLE_LABEL.matcher(sample.group(2));
                while (label.find()) {
                    labels.add(label.group(1));
                }
            }
        }
    }

    private static Map<String, Object> rules() throws IOException {
        try (Reader reader = Files.newBufferedReader(DEPLOY.resolve("prometheus/vesta-rules.yml"))) {
            return new Yaml().load(reader);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object yaml) {
        return (List<Map<String, Object>>) yaml;
    }

    /** Every panel, those inside rows too. */
    private static List<JsonNode> panels(JsonNode container) {
        List<JsonNode> panels = new ArrayList<>();
        for (JsonNode panel : container.path("panels")) {
            panels.add(panel);
            panels.addAll(panels(panel));
        }
        return panels;
    }
}
