package io.vesta.server;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import io.vesta.autoconfigure.server.VestaOpenApiController;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.publicid.Ff1PublicIds;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server against its contract, {@code /vesta/openapi.yaml}: every documented operation, each of its parameters and
 * each of its response codes is requested of the running server (on a random port of 127.0.0.1, with tokens, make-id,
 * lease admin on the {@code db} strategy, segments and their admin on), and the answer must have the documented
 * status, a documented content type, the documented required headers, and a body valid under the documented schema
 * (JSON Schema 2020-12, formats asserted). The requests are written below by hand, one per response, and the test
 * fails when a documented response or parameter has none, so a response added to the document needs a request here
 * that provokes it. In the other direction every endpoint the server maps under {@code /vesta/} must be in the
 * document, so an endpoint added without its contract fails.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.server.tokens=" + OpenApiContractTests.CLIENT, "vesta.server.admin-tokens=" + OpenApiContractTests.ADMIN,
        "vesta.server.make-id-enabled=true", "vesta.server.lease-admin-enabled=true",
        "vesta.segment.admin-enabled=true", "vesta.segment.auto-create-tags=auto-.*",
        "vesta.public-id.enabled=true", "vesta.public-id.keys.1=" + OpenApiContractTests.PUBLIC_ID_KEY,
        // One machine ID for the server: a takeover of its row leaves it none to claim, the 503 of the contract.
        "vesta.machine-id.server-range.min=1023", "vesta.machine-id.server-range.max=1023" })
class OpenApiContractTests {

    static final String CLIENT = "contract-client-token-0123456789";
    static final String ADMIN = "contract-admin-token-9876543210";
    static final String WRONG = "contract-wrong-token-5555555555";
    /** The server's public-ID key, 16 bytes in base 64. */
    static final String PUBLIC_ID_KEY = "AAECAwQFBgcICQoLDA0ODw==";
    static final String DOCUMENT_ID = "https://vesta.invalid/openapi.json";
    static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        LeaseTakeover.dbStrategy(registry, dir);
    }

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    @Autowired
    ApplicationContext context;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final JsonNode document = readDocument();
    private final SchemaRegistry schemas = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            builder -> builder.schemas(Map.of(DOCUMENT_ID, JsonMapper.shared().writeValueAsString(document)))
                    .schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));

    /** A request and the documented response it must get: the operation as {@code METHOD /path/{template}}. */
    record Call(String operation, String uri, String token, int status) {

        String method() {
            return operation.substring(0, operation.indexOf(' '));
        }

        String template() {
            return operation.substring(operation.indexOf(' ') + 1);
        }

        /** The parameters the request sets: those of the path template and of the query. */
        Set<String> parameters() {
            Set<String> names = new TreeSet<>();
            Matcher variable = Pattern.compile("\\{([^}]+)}").matcher(template());
            while (variable.find()) {
                names.add(variable.group(1));
            }
            int query = uri.indexOf('?');
            if (query >= 0) {
                for (String pair : uri.substring(query + 1).split("&")) {
                    names.add(pair.substring(0, pair.indexOf('=') < 0 ? pair.length() : pair.indexOf('=')));
                }
            }
            return names;
        }
    }

    @Test
    void everyDocumentedOperationParameterAndResponseIsAnsweredAsDocumented() throws Exception {
        String tag = "contract-tag";
        String publicOf1 = Ff1PublicIds.builder().key(1, Base64.getDecoder().decode(PUBLIC_ID_KEY)).build().toPublic(1);
        List<Call> calls = new ArrayList<>();
        calls.addAll(List.of(
                new Call("GET /vesta/openapi.yaml", "/vesta/openapi.yaml", null, 200),
                new Call("GET /vesta/openapi.yaml", "/vesta/openapi.yaml", WRONG, 200),
                new Call("GET /vesta/genid", "/vesta/genid", CLIENT, 200),
                new Call("GET /vesta/genid", "/vesta/genid", null, 401),
                new Call("GET /vesta/genid", "/vesta/genid?format=base32", CLIENT, 200),
                new Call("GET /vesta/genid", "/vesta/genid?format=base36", CLIENT, 400),
                new Call("GET /vesta/genids", "/vesta/genids?count=3", CLIENT, 200),
                new Call("GET /vesta/genids", "/vesta/genids?count=0", CLIENT, 400),
                new Call("GET /vesta/genids", "/vesta/genids?count=1", WRONG, 401),
                new Call("GET /vesta/genids", "/vesta/genids?count=3&format=base62", CLIENT, 200),
                new Call("GET /vesta/genids", "/vesta/genids?count=3&format=decimal", CLIENT, 200),
                new Call("GET /vesta/v1/ids", "/vesta/v1/ids?count=4", CLIENT, 200),
                new Call("GET /vesta/v1/ids", "/vesta/v1/ids?count=x", CLIENT, 400),
                new Call("GET /vesta/v1/ids", "/vesta/v1/ids?count=1", null, 401),
                new Call("GET /vesta/expid/{id}", "/vesta/expid/2709772636019233692", CLIENT, 200),
                // A version-1 ID, unsigned: negative as a signed long.
                new Call("GET /vesta/expid/{id}", "/vesta/expid/11933144673234009500", CLIENT, 200),
                new Call("GET /vesta/expid/{id}", "/vesta/expid/abc", CLIENT, 400),
                // 2709772636019233692 and 11933144673234009500 in base 32 and base 62.
                new Call("GET /vesta/expid/{id}", "/vesta/expid/2B6RBVC0004WW?format=base32", CLIENT, 200),
                new Call("GET /vesta/expid/{id}", "/vesta/expid/AB6RBVCAQAFCW?format=base32", CLIENT, 200),
                new Call("GET /vesta/expid/{id}", "/vesta/expid/3EAmoqbp2my?format=base62", CLIENT, 200),
                new Call("GET /vesta/expid/{id}", "/vesta/expid/abc?format=base62", CLIENT, 400),
                new Call("GET /vesta/expid/{id}", "/vesta/expid/1?format=octal", CLIENT, 400),
                new Call("GET /vesta/expid/{id}", "/vesta/expid/1", null, 401),
                new Call("GET /vesta/transtime/{time}", "/vesta/transtime/376188780", CLIENT, 200),
                new Call("GET /vesta/transtime/{time}", "/vesta/transtime/1073741824", CLIENT, 400),
                new Call("GET /vesta/transtime/{time}", "/vesta/transtime/1", WRONG, 401),
                new Call("POST /vesta/makeid", "/vesta/makeid?time=376188780&seq=5&machine=1000&genMethod=2&type=0&version=0",
                        ADMIN, 200),
                new Call("POST /vesta/makeid", "/vesta/makeid?time=376188780&seq=1048576", ADMIN, 400),
                new Call("POST /vesta/makeid", "/vesta/makeid?time=1&seq=1", null, 401),
                new Call("POST /vesta/makeid", "/vesta/makeid?time=1&seq=1", CLIENT, 403),
                new Call("GET /vesta/status", "/vesta/status", CLIENT, 200),
                new Call("GET /vesta/status", "/vesta/status", null, 401),
                new Call("POST /vesta/admin/segments/{bizTag}", "/vesta/admin/segments/" + tag + "?step=100&start=1", ADMIN, 201),
                new Call("POST /vesta/admin/segments/{bizTag}", "/vesta/admin/segments/" + tag, ADMIN, 200),
                new Call("POST /vesta/admin/segments/{bizTag}", "/vesta/admin/segments/" + tag + "?step=0", ADMIN, 400),
                new Call("POST /vesta/admin/segments/{bizTag}", "/vesta/admin/segments/" + tag, WRONG, 401),
                new Call("POST /vesta/admin/segments/{bizTag}", "/vesta/admin/segments/" + tag, CLIENT, 403),
                new Call("GET /vesta/segment/{bizTag}", "/vesta/segment/" + tag, CLIENT, 200),
                new Call("GET /vesta/segment/{bizTag}", "/vesta/segment/" + tag + "?count=3", CLIENT, 200),
                new Call("GET /vesta/segment/{bizTag}", "/vesta/segment/" + tag + "?count=100001", CLIENT, 400),
                new Call("GET /vesta/segment/{bizTag}", "/vesta/segment/" + tag, null, 401),
                new Call("GET /vesta/segment/{bizTag}", "/vesta/segment/auto-never-created", CLIENT, 404),
                new Call("POST /vesta/segment/{bizTag}", "/vesta/segment/auto-contract", CLIENT, 200),
                new Call("POST /vesta/segment/{bizTag}", "/vesta/segment/auto-contract?count=2", CLIENT, 200),
                new Call("POST /vesta/segment/{bizTag}", "/vesta/segment/auto-contract?count=0", CLIENT, 400),
                new Call("POST /vesta/segment/{bizTag}", "/vesta/segment/auto-contract", null, 401),
                new Call("POST /vesta/segment/{bizTag}", "/vesta/segment/not-matching-the-pattern", CLIENT, 404),
                new Call("GET /vesta/segments", "/vesta/segments", CLIENT, 200),
                new Call("GET /vesta/segments", "/vesta/segments", null, 401),
                new Call("GET /vesta/admin/leases", "/vesta/admin/leases", ADMIN, 200),
                new Call("GET /vesta/admin/leases", "/vesta/admin/leases?range=embedded", ADMIN, 200),
                new Call("GET /vesta/admin/leases", "/vesta/admin/leases?range=elsewhere", ADMIN, 400),
                new Call("GET /vesta/admin/leases", "/vesta/admin/leases", null, 401),
                new Call("GET /vesta/admin/leases", "/vesta/admin/leases", CLIENT, 403),
                new Call("GET /vesta/admin/public-ids", "/vesta/admin/public-ids?id=2709772636019233692", ADMIN, 200),
                new Call("GET /vesta/admin/public-ids", "/vesta/admin/public-ids?id=11933144673234009500", ADMIN, 200),
                new Call("GET /vesta/admin/public-ids", "/vesta/admin/public-ids?id=2B6RBVC0004WW&format=base32", ADMIN, 200),
                new Call("GET /vesta/admin/public-ids", "/vesta/admin/public-ids?id=abc", ADMIN, 400),
                new Call("GET /vesta/admin/public-ids", "/vesta/admin/public-ids?id=1", null, 401),
                new Call("GET /vesta/admin/public-ids", "/vesta/admin/public-ids?id=1", CLIENT, 403),
                new Call("GET /vesta/admin/public-ids/{publicId}", "/vesta/admin/public-ids/" + publicOf1, ADMIN, 200),
                new Call("GET /vesta/admin/public-ids/{publicId}", "/vesta/admin/public-ids/1ABC", ADMIN, 400),
                new Call("GET /vesta/admin/public-ids/{publicId}", "/vesta/admin/public-ids/" + publicOf1, WRONG, 401),
                new Call("GET /vesta/admin/public-ids/{publicId}", "/vesta/admin/public-ids/" + publicOf1, CLIENT, 403)));

        SoftAssertions softly = new SoftAssertions();
        List<Call> made = new ArrayList<>();
        for (Call call : calls) {
            check(softly, call);
            made.add(call);
        }

        // Leases: another node holds machine ID 1000 live; the server holds 1023; nobody ever held 5.
        try (DbMachineIdProvider other = DbMachineIdProvider.builder(dataSource).owner("other-node")
                .lease(Duration.ofSeconds(60)).heartbeat(Duration.ofSeconds(20)).build()) {
            assertThat(other.acquire(new MachineIdRange(1000, 1000))).isEqualTo(1000);
            for (Call call : List.of(
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/1000?force=false", ADMIN, 409),
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/1023", ADMIN, 409),
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/1000?force=true", ADMIN, 200),
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/1000", ADMIN, 200),
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/5", ADMIN, 404),
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/1024", ADMIN, 400),
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/1000?force=maybe", ADMIN, 400),
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/1000", null, 401),
                    new Call("DELETE /vesta/admin/leases/{machineId}", "/vesta/admin/leases/1000", CLIENT, 403))) {
                check(softly, call);
                made.add(call);
            }
        }

        // The segment table out of reach: 503 from every endpoint that loads or creates a segment.
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("ALTER TABLE vesta_segment RENAME TO vesta_segment_away");
        try {
            for (Call call : List.of(
                    new Call("GET /vesta/segment/{bizTag}", "/vesta/segment/auto-unloaded", CLIENT, 503),
                    new Call("POST /vesta/segment/{bizTag}", "/vesta/segment/auto-unloaded-too", CLIENT, 503),
                    new Call("POST /vesta/admin/segments/{bizTag}", "/vesta/admin/segments/unloaded", ADMIN, 503))) {
                check(softly, call);
                made.add(call);
            }
        } finally {
            jdbc.execute("ALTER TABLE vesta_segment_away RENAME TO vesta_segment");
        }

        // The server's lease taken over, with no other machine ID to claim: 503 from every endpoint that issues IDs.
        try (DbMachineIdProvider taker = LeaseTakeover.takeOver(dataSource, 1023)) {
            Call genId = new Call("GET /vesta/genid", "/vesta/genid", CLIENT, 503);
            LeaseTakeover.awaitTrue("the server lost its machine ID", () -> {
                try {
                    return send(genId).statusCode() == 503;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            for (Call call : List.of(
                    new Call("GET /vesta/genid", "/vesta/genid", CLIENT, 503),
                    new Call("GET /vesta/genids", "/vesta/genids?count=2", CLIENT, 503),
                    new Call("GET /vesta/v1/ids", "/vesta/v1/ids?count=2", CLIENT, 503))) {
                check(softly, call);
                made.add(call);
            }
        }
        softly.assertAll();

        // Every documented response and parameter was asked for above.
        Map<String, Set<Integer>> answered = new LinkedHashMap<>();
        Map<String, Set<String>> parameters = new LinkedHashMap<>();
        for (Call call : made) {
            answered.computeIfAbsent(call.operation(), k -> new TreeSet<>()).add(call.status());
            parameters.computeIfAbsent(call.operation(), k -> new TreeSet<>()).addAll(call.parameters());
        }
        Map<String, Set<Integer>> documented = new LinkedHashMap<>();
        Map<String, Set<String>> documentedParameters = new LinkedHashMap<>();
        int responses = 0;
        for (Map.Entry<String, JsonNode> path : document.get("paths").properties()) {
            for (Map.Entry<String, JsonNode> operation : path.getValue().properties()) {
                if (!METHODS.contains(operation.getKey())) {
                    continue;
                }
                String key = operation.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
                Set<Integer> codes = new TreeSet<>();
                operation.getValue().get("responses").propertyNames().forEach(code -> codes.add(Integer.parseInt(code)));
                responses += codes.size();
                documented.put(key, codes);
                Set<String> names = new TreeSet<>();
                for (JsonNode parameter : parametersOf(path.getValue(), operation.getValue())) {
                    names.add(parameter.get("name").asString());
                }
                documentedParameters.put(key, names);
            }
        }
        assertThat(answered).as("the responses asked for, by operation").isEqualTo(documented);
        for (Map.Entry<String, Set<String>> operation : documentedParameters.entrySet()) {
            assertThat(parameters.get(operation.getKey())).as("the parameters set of %s", operation.getKey())
                    .containsAll(operation.getValue());
        }
        assertThat(documented).as("operations").hasSize(16);
        assertThat(responses).as("documented responses").isEqualTo(
                answered.values().stream().mapToInt(Set::size).sum());
    }

    @Test
    void everyEndpointTheServerMapsUnderVestaIsDocumented() {
        Set<String> mapped = new TreeSet<>();
        for (RequestMappingHandlerMapping mapping : context.getBeansOfType(RequestMappingHandlerMapping.class).values()) {
            for (RequestMappingInfo info : mapping.getHandlerMethods().keySet()) {
                Set<String> paths = info.getPathPatternsCondition() == null ? info.getPatternValues()
                        : info.getPathPatternsCondition().getPatternValues();
                for (String path : paths) {
                    if (!path.startsWith("/vesta/") && !path.equals("/vesta")) {
                        continue;
                    }
                    Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
                    assertThat(methods).as("the methods of %s", path).isNotEmpty();
                    for (RequestMethod method : methods) {
                        mapped.add(method.name() + " " + path);
                    }
                }
            }
        }
        for (ServletRegistrationBean<?> servlet : context.getBeansOfType(ServletRegistrationBean.class).values()) {
            for (String path : servlet.getUrlMappings()) {
                if (path.startsWith("/vesta/")) {
                    // A plain servlet takes GET (and HEAD, which the document describes for every GET).
                    assertThat(path).as("a servlet's mapping under /vesta/").doesNotContain("*");
                    mapped.add("GET " + path);
                }
            }
        }
        Set<String> documented = new TreeSet<>();
        for (Map.Entry<String, JsonNode> path : document.get("paths").properties()) {
            for (String method : path.getValue().propertyNames()) {
                if (METHODS.contains(method)) {
                    documented.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
            }
        }
        assertThat(mapped).as("endpoints the server maps under /vesta/").contains("GET /vesta/genid", "GET /vesta/openapi.yaml",
                "DELETE /vesta/admin/leases/{machineId}");
        assertThat(documented).as("the documented operations, against the server's mappings").isEqualTo(mapped);
    }

    /** The checks above are only as good as the schemas' power to refuse: a wrong answer must fail them. */
    @Test
    void theDocumentedSchemasRefuseAnswersTheServerMustNotGive() {
        JsonMapper json = JsonMapper.shared();
        Schema id = schemaAt("#/components/schemas/Id");
        assertThat(id.validate(json.readTree("{\"id\":2709773996450121628,\"idString\":\"2709773996450121628\"}"))).isEmpty();
        assertThat(id.validate(json.readTree("{\"id\":1}"))).as("idString missing").isNotEmpty();
        assertThat(id.validate(json.readTree("{\"id\":1,\"idString\":\"1\",\"extra\":1}"))).as("a member not documented")
                .isNotEmpty();
        assertThat(id.validate(json.readTree("{\"id\":1,\"idString\":\"0x1\"}"))).as("not decimal").isNotEmpty();
        assertThat(id.validate(json.readTree("{\"id\":1,\"idString\":\"0000000000001\",\"format\":\"base32\"}")))
                .isEmpty();
        assertThat(id.validate(json.readTree("{\"id\":1,\"idString\":\"000000000000U\",\"format\":\"base32\"}")))
                .as("U is not Crockford").isNotEmpty();
        assertThat(id.validate(json.readTree("{\"id\":1,\"idString\":\"1\",\"format\":\"hex\"}")))
                .as("a format not documented").isNotEmpty();
        assertThat(schemaAt("#/components/schemas/TransTime").validate(json.readTree(
                "{\"time\":1,\"type\":\"MAX_PEAK\",\"instant\":\"yesterday\"}"))).as("not a date-time").isNotEmpty();
        assertThat(schemaAt("#/components/responses/SegmentNumbers/content/application~1json/schema").validate(json.readTree(
                "{\"bizTag\":\"a\",\"count\":1,\"ids\":[1]}"))).as("neither of the two shapes").isNotEmpty();
        assertThat(schemaAt("#/components/schemas/UnavailableProblem").validate(json.readTree(
                "{\"title\":\"t\",\"status\":503,\"detail\":\"d\",\"instance\":\"/vesta/genid\",\"reason\":\"own\"}")))
                .as("a reason of another problem").isNotEmpty();
    }

    private void check(SoftAssertions softly, Call call) throws Exception {
        HttpResponse<byte[]> response = send(call);
        String what = call.method() + " " + call.uri() + " with " + (call.token() == null ? "no token"
                : call.token().equals(WRONG) ? "an unknown token" : call.token().equals(ADMIN) ? "the admin token"
                        : "the client token");
        String body = new String(response.body(), StandardCharsets.UTF_8);
        softly.assertThat(response.statusCode()).as("%s: %s", what, body).isEqualTo(call.status());
        JsonNode responseSpec = resolve(document.get("paths").get(call.template()).get(call.method().toLowerCase(Locale.ROOT))
                .get("responses").get(Integer.toString(call.status())));
        if (responseSpec == null) {
            softly.fail("%s: status %d is not documented", what, call.status());
            return;
        }
        String pointer = pointerOf(responseSpec);
        for (Map.Entry<String, JsonNode> header : responseSpec.path("headers").properties()) {
            var value = response.headers().firstValue(header.getKey());
            if (header.getValue().path("required").asBoolean(false)) {
                softly.assertThat(value).as("%s: header %s", what, header.getKey()).isPresent();
            }
            if (value.isPresent()) {
                List<Error> errors = schemaAt(pointer + "/headers/" + escape(header.getKey()) + "/schema")
                        .validate(JsonMapper.shared().valueToTree(value.get()));
                softly.assertThat(errors).as("%s: header %s: %s", what, header.getKey(), value.get()).isEmpty();
            }
        }
        JsonNode content = responseSpec.get("content");
        if (content == null) {
            softly.assertThat(response.body()).as("%s: no content is documented", what).isEmpty();
            return;
        }
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        String mediaType = contentType.split(";")[0].trim();
        softly.assertThat(content.propertyNames()).as("%s: the documented media types", what).contains(mediaType);
        if (!content.has(mediaType)) {
            return;
        }
        switch (mediaType) {
            case "application/json", "application/problem+json" -> {
                JsonNode json = JsonMapper.shared().readTree(response.body());
                List<Error> errors = schemaAt(pointer + "/content/" + escape(mediaType) + "/schema").validate(json);
                softly.assertThat(errors).as("%s: %s against the documented schema", what, body).isEmpty();
                if (call.status() >= 400) {
                    softly.assertThat(json.get("status").asInt()).as("%s: the problem's status", what).isEqualTo(call.status());
                }
            }
            case "application/octet-stream" -> {
                int count = Integer.parseInt(call.uri().replaceAll(".*[?&]count=(\\d+).*", "$1"));
                softly.assertThat(response.body()).as("%s: %d IDs of 8 bytes", what, count).hasSize(8 * count);
            }
            case "application/yaml" -> softly.assertThat(response.body()).as("%s: the document itself", what)
                    .isEqualTo(VestaOpenApiController.document());
            default -> softly.fail("%s: no check for media type %s", what, mediaType);
        }
    }

    private HttpResponse<byte[]> send(Call call) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + call.uri()))
                .timeout(Duration.ofSeconds(30)).method(call.method(), HttpRequest.BodyPublishers.noBody());
        if (call.token() != null) {
            request.header("Authorization", "Bearer " + call.token());
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The path item's and the operation's parameters, each $ref resolved. */
    private List<JsonNode> parametersOf(JsonNode pathItem, JsonNode operation) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode holder : List.of(pathItem, operation)) {
            for (JsonNode parameter : holder.path("parameters")) {
                all.add(resolve(parameter));
            }
        }
        return all;
    }

    /** The node a local $ref points at, or the node itself; null stays null. */
    private JsonNode resolve(JsonNode node) {
        if (node == null || !node.has("$ref")) {
            return node;
        }
        String ref = node.get("$ref").asString();
        assertThat(ref).startsWith("#/");
        return document.at(ref.substring(1));
    }

    /** Where a response object lies in the document, as a JSON pointer fragment, found by identity. */
    private String pointerOf(JsonNode target) {
        String found = find(document, "#", target);
        assertThat(found).as("the response object in the document").isNotNull();
        return found;
    }

    private static String find(JsonNode node, String pointer, JsonNode target) {
        if (node == target) {
            return pointer;
        }
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> child : node.properties()) {
                String found = find(child.getValue(), pointer + "/" + escape(child.getKey()), target);
                if (found != null) {
                    return found;
                }
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String found = find(node.get(i), pointer + "/" + i, target);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private Schema schemaAt(String pointer) {
        return schemas.getSchema(SchemaLocation.of(DOCUMENT_ID + pointer));
    }

    private static String escape(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }

    private static JsonNode readDocument() {
        return new YAMLMapper().readTree(VestaOpenApiController.document());
    }
}
