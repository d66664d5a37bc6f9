package io.vesta.autoconfigure.server;

import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdFormat;
import io.vesta.IdService;
import io.vesta.IdType;
import io.vesta.protocol.BatchProtocol;
import io.vesta.layout.IdCodec;
import io.vesta.machine.MachineIdLease;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.MachineIdRange;
import io.vesta.test.ManualTimeSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Every endpoint of a central server over real HTTP, good input and bad, and the 503s. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "vesta.server.enabled=true", "vesta.server.make-id-enabled=true", "server.address=127.0.0.1",
        "vesta.server.admin-tokens=" + VestaServerEndpointsTests.ADMIN_TOKEN,
        "spring.main.banner-mode=off",
        // The test's clock writes marks at its own times: none are kept in the directory other tests share.
        "vesta.time-store.enabled=false" })
class VestaServerEndpointsTests {

    static final String ADMIN_TOKEN = "endpoints-test-admin-token-0123456789";
    static final Instant START = Instant.parse("2026-06-01T12:00:00.250Z");
    static final long MACHINE = 1000;
    static final IdCodec CODEC = new IdCodec(IdCodec.DEFAULT_EPOCH);

    @LocalServerPort
    private int port;

    @Autowired
    private ManualTimeSource clock;

    @Autowired
    private MachineIdLease lease;

    @Autowired
    private IdService idService;

    @Autowired
    private ServerIdServices services;

    private Http http;

    @BeforeEach
    void connect() {
        http = new Http(port, ADMIN_TOKEN);
    }

    private static void assertProblem(HttpResponse<String> response, int status, String parameter, String detail) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = Http.json(response);
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("detail").asString()).isEqualTo(detail);
        if (parameter != null) {
            assertThat(problem.get("parameter").asString()).isEqualTo(parameter);
            assertThat(problem.get("title").asString()).isEqualTo("Invalid parameter '" + parameter + "'");
        }
    }

    private static long idOf(JsonNode node) {
        long id = node.get("id").asLong();
        assertThat(node.get("id").isNumber()).isTrue();
        assertThat(node.get("idString").asString()).isEqualTo(Long.toString(id));
        return id;
    }

    @Test
    void genidIssuesARestIdAsANumberAndAString() {
        HttpResponse<String> response = http.get("/vesta/genid");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        Id fields = CODEC.expId(idOf(Http.json(response)));
        assertThat(fields.machine()).isEqualTo(MACHINE);
        assertThat(fields.genMethod()).isEqualTo(GenMethod.REST.code());
        assertThat(fields.type()).isEqualTo(IdType.MAX_PEAK.code());
        assertThat(CODEC.transTime(IdType.MAX_PEAK, fields.time())).isEqualTo(clock.now().truncatedTo(ChronoUnit.SECONDS));
    }

    @Test
    void genidsIssuesCountIncreasingIdsAsNumbersAndStrings() {
        JsonNode body = Http.json(http.get("/vesta/genids?count=5"));

        assertThat(body.get("count").asInt()).isEqualTo(5);
        List<Long> ids = new ArrayList<>();
        body.get("ids").values().forEach(id -> ids.add(id.asLong()));
        List<String> strings = new ArrayList<>();
        body.get("idStrings").values().forEach(id -> strings.add(id.asString()));
        assertThat(ids).hasSize(5).isSorted().doesNotHaveDuplicates();
        assertThat(strings).isEqualTo(ids.stream().map(String::valueOf).toList());
        assertThat(ids).allSatisfy(id -> assertThat(CODEC.expId(id).genMethod()).isEqualTo(GenMethod.REST.code()));
    }

    @Test
    void genidsServesTheLargestBatch() {
        JsonNode body = Http.json(http.get("/vesta/genids?count=100000"));

        assertThat(body.get("count").asInt()).isEqualTo(100_000);
        assertThat(body.get("ids").size()).isEqualTo(100_000);
        assertThat(body.get("idStrings").size()).isEqualTo(100_000);
    }

    @Test
    void genidsRefusesACountThatIsMissingOrNotInRange() {
        assertProblem(http.get("/vesta/genids"), 400, "count", "count is required: an integer in [1, 100000]");
        assertProblem(http.get("/vesta/genids?count=0"), 400, "count", "count must be in [1, 100000], was 0");
        assertProblem(http.get("/vesta/genids?count=100001"), 400, "count", "count must be in [1, 100000], was 100001");
        assertProblem(http.get("/vesta/genids?count=-3"), 400, "count", "count must be in [1, 100000], was -3");
        assertProblem(http.get("/vesta/genids?count=ten"), 400, "count", "count must be an integer in [1, 100000], was 'ten'");
        assertProblem(http.get("/vesta/genids?count=99999999999"), 400, "count",
                "count must be an integer in [1, 100000], was '99999999999'");
        assertThat(Http.json(http.get("/vesta/genids?count=ten")).get("value").asString()).isEqualTo("ten");
    }

    @Test
    void expidDecodesAnIdGivenSignedOrUnsigned() {
        long id = CODEC.makeId(1, 1, 2, 123_456_789, 77, 999);
        assertThat(id).isNegative();

        for (String form : List.of(Long.toString(id), Long.toUnsignedString(id))) {
            JsonNode body = Http.json(http.get("/vesta/expid/" + form));
            assertThat(idOf(body)).isEqualTo(id);
            assertThat(body.get("machine").asLong()).isEqualTo(999);
            assertThat(body.get("seq").asLong()).isEqualTo(77);
            assertThat(body.get("time").asLong()).isEqualTo(123_456_789);
            assertThat(body.get("genMethod").asLong()).isEqualTo(2);
            assertThat(body.get("type").asLong()).isEqualTo(1);
            assertThat(body.get("idType").asString()).isEqualTo("MIN_GRANULARITY");
            assertThat(body.get("version").asLong()).isEqualTo(1);
            assertThat(Instant.parse(body.get("instant").asString()))
                    .isEqualTo(IdCodec.DEFAULT_EPOCH.plusMillis(123_456_789));
        }
    }

    @Test
    void expidRefusesWhatIsNotA64BitInteger() {
        String detail = "id must be a 64-bit integer (signed, or unsigned for version-1 IDs), was '%s'; " + FORMS;
        assertProblem(http.get("/vesta/expid/12x"), 400, "id", detail.formatted("12x"));
        assertProblem(http.get("/vesta/expid/18446744073709551616"), 400, "id", detail.formatted("18446744073709551616"));
        assertProblem(http.get("/vesta/expid/-9223372036854775809"), 400, "id", detail.formatted("-9223372036854775809"));
    }

    static final String FORMS = "the forms: decimal (the default), format=base32 (13 Crockford base-32 characters),"
            + " format=base62 (11 characters)";

    @Test
    void expidDecodesAnIdInBase32OrBase62WhenFormatSaysSo() {
        long id = CODEC.makeId(1, 1, 2, 123_456_789, 77, 999);
        Map<String, String> forms = new LinkedHashMap<>();
        forms.put(IdFormat.BASE32.format(id) + "?format=base32", "base32");
        forms.put(IdFormat.BASE32.format(id).toLowerCase(Locale.ROOT) + "?format=BASE32", "base32, lower case");
        String base32 = IdFormat.BASE32.format(id);
        forms.put(base32.substring(0, 4) + "-" + base32.substring(4) + "?format=base32", "base32 with a hyphen");
        forms.put(IdFormat.BASE62.format(id) + "?format=base62", "base62");
        forms.put(Long.toUnsignedString(id) + "?format=decimal", "decimal, named");
        forms.forEach((path, what) -> {
            JsonNode body = Http.json(http.get("/vesta/expid/" + path));
            assertThat(idOf(body)).as(what).isEqualTo(id);
            assertThat(body.get("machine").asLong()).as(what).isEqualTo(999);
            assertThat(body.get("seq").asLong()).as(what).isEqualTo(77);
        });
    }

    @Test
    void expidRefusesAStringNotOfItsFormatAndAnUnknownFormatNamingThemAndTheForms() {
        String base62 = IdFormat.BASE62.format(42);
        assertProblem(http.get("/vesta/expid/" + base62 + "?format=base32"), 400, "id", "id must be an ID in the form"
                + " format=base32 asks for: \"" + base62 + "\" is not a BASE32 ID: it has 11 characters besides hyphens,"
                + " a BASE32 ID has 13; " + FORMS);
        assertProblem(http.get("/vesta/expid/0000000000U00?format=base32"), 400, "id", "id must be an ID in the form"
                + " format=base32 asks for: \"0000000000U00\" is not a BASE32 ID: the character 'U' at index 10 is not a"
                + " Crockford base-32 digit (0-9, A-Z without U, either case); " + FORMS);
        assertProblem(http.get("/vesta/expid/" + base62 + "?format=base36"), 400, "format",
                "format must be one of decimal, base32, base62, was 'base36'");
        assertProblem(http.get("/vesta/expid/" + base62), 400, "id", "id must be a 64-bit integer (signed, or unsigned"
                + " for version-1 IDs), was '" + base62 + "'; " + FORMS);
        assertThat(Http.json(http.get("/vesta/expid/1?format=")).get("value").asString()).isEmpty();
    }

    @Test
    void genidAndGenidsWriteTheirStringsInTheAskedFormatAndNameIt() {
        for (IdFormat format : IdFormat.values()) {
            String name = format.name().toLowerCase(Locale.ROOT);
            JsonNode one = Http.json(http.get("/vesta/genid?format=" + name));
            assertThat(one.get("idString").asString()).isEqualTo(format.format(one.get("id").asLong()));
            assertThat(one.get("format").asString()).isEqualTo(name);
            assertThat(CODEC.expId(one.get("id").asLong()).machine()).isEqualTo(MACHINE);

            JsonNode batch = Http.json(http.get("/vesta/genids?count=4&format=" + name.toUpperCase(Locale.ROOT)));
            assertThat(batch.get("format").asString()).isEqualTo(name);
            List<String> strings = new ArrayList<>();
            batch.get("idStrings").values().forEach(id -> strings.add(id.asString()));
            List<String> expected = new ArrayList<>();
            batch.get("ids").values().forEach(id -> expected.add(format.format(id.asLong())));
            assertThat(strings).hasSize(4).isEqualTo(expected).doesNotHaveDuplicates();
            if (format != IdFormat.DECIMAL) {
                assertThat(strings).as("%s sorts as the IDs do", format).isSorted();
            }
        }
        assertThat(Http.json(http.get("/vesta/genid")).has("format")).as("unchanged without format").isFalse();
        assertThat(Http.json(http.get("/vesta/genids?count=1")).has("format")).as("unchanged without format").isFalse();
    }

    @Test
    void genidAndGenidsRefuseAnUnknownFormatBeforeIssuingAnId() {
        long before = services.rest().idsIssued();
        String detail = "format must be one of decimal, base32, base62, was 'hex'";
        assertProblem(http.get("/vesta/genid?format=hex"), 400, "format", detail);
        assertProblem(http.get("/vesta/genids?count=3&format=hex"), 400, "format", detail);
        assertThat(services.rest().idsIssued()).as("no ID was taken").isEqualTo(before);
    }

    @Test
    void transtimeGivesTheInstantOfATimeFieldOfTheServersType() {
        JsonNode body = Http.json(http.get("/vesta/transtime/100"));

        assertThat(body.get("time").asLong()).isEqualTo(100);
        assertThat(body.get("type").asString()).isEqualTo("MAX_PEAK");
        assertThat(body.get("instant").asString()).isEqualTo("2014-12-31T16:01:40Z");
    }

    @Test
    void transtimeRefusesATimeOutsideTheField() {
        assertProblem(http.get("/vesta/transtime/-1"), 400, "time", "time must be in [0, 1073741823] (MAX_PEAK time field), was -1");
        assertProblem(http.get("/vesta/transtime/1073741824"), 400, "time",
                "time must be in [0, 1073741823] (MAX_PEAK time field), was 1073741824");
        assertProblem(http.get("/vesta/transtime/noon"), 400, "time",
                "time must be an integer in [0, 1073741823] (MAX_PEAK time field), was 'noon'");
    }

    @Test
    void makeidBuildsAnIdFromFieldsWithTheServersOwnAsDefaults() {
        JsonNode made = Http.json(http.postForm("/vesta/makeid", "time=300000000&seq=5"));
        assertThat(CODEC.expId(idOf(made))).isEqualTo(new Id(MACHINE, 5, 300_000_000, 2, 0, 0));

        JsonNode all = Http.json(http.postForm("/vesta/makeid", "time=300000000&seq=5&machine=3&genMethod=0&type=1&version=1"));
        assertThat(CODEC.expId(idOf(all))).isEqualTo(new Id(3, 5, 300_000_000, 0, 1, 1));
        assertThat(all.get("idType").asString()).isEqualTo("MIN_GRANULARITY");
    }

    @Test
    void makeidRefusesMissingAndOutOfRangeFieldsNamingThem() {
        assertProblem(http.postForm("/vesta/makeid", "seq=5"), 400, "time", "time is required: an integer");
        assertProblem(http.postForm("/vesta/makeid", "time=1"), 400, "seq", "seq is required: an integer");
        assertProblem(http.postForm("/vesta/makeid", "time=1&seq=1048576"), 400, "seq", "seq must be in [0, 1048575], was 1048576");
        assertProblem(http.postForm("/vesta/makeid", "time=1&seq=1&machine=1024"), 400, "machine",
                "machine must be in [0, 1023], was 1024");
        assertProblem(http.postForm("/vesta/makeid", "time=1&seq=1&genMethod=4"), 400, "genMethod",
                "genMethod must be in [0, 3], was 4");
        assertProblem(http.postForm("/vesta/makeid", "time=1&seq=1&type=2"), 400, "type",
                "type must be in [0, 1], was 2");
        assertProblem(http.postForm("/vesta/makeid", "time=1&seq=1&version=-1"), 400, "version",
                "version must be in [0, 1], was -1");
        assertProblem(http.postForm("/vesta/makeid", "time=1073741824&seq=1"), 400, "time",
                "time must be in [0, 1073741823], was 1073741824");
        assertProblem(http.postForm("/vesta/makeid", "time=soon&seq=1"), 400, "time", "time must be an integer, was 'soon'");
        assertThat(Http.json(http.postForm("/vesta/makeid", "time=1&seq=1&machine=1024")).get("value").asString()).isEqualTo("1024");
    }

    @Test
    void theJavaClientEndpointServesBigEndianIdsOfGenMethodOne() {
        HttpResponse<byte[]> response = http.getBytes(BatchProtocol.PATH + "?count=10");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue(BatchProtocol.MEDIA_TYPE);
        assertThat(response.headers().firstValue(BatchProtocol.EPOCH_HEADER)).hasValue("1420041600000");
        assertThat(response.body()).hasSize(80);
        long[] ids = BatchProtocol.decode(response.body());
        assertThat(ids).isSorted().doesNotHaveDuplicates();
        assertThat(Arrays.stream(ids).mapToObj(CODEC::expId)).allSatisfy(id -> {
            assertThat(id.genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
            assertThat(id.machine()).isEqualTo(MACHINE);
        });
        // Big-endian: the first byte is the top of the ID (version, type, genMethod 01, time).
        assertThat(response.body()[0]).isEqualTo((byte) (ids[0] >>> 56));
    }

    @Test
    void theJavaClientEndpointRefusesABadCount() {
        HttpResponse<String> response = http.get(BatchProtocol.PATH + "?count=0");
        assertProblem(response, 400, "count", "count must be in [1, 100000], was 0");
        assertProblem(http.get(BatchProtocol.PATH), 400, "count", "count is required: an integer in [1, 100000]");
    }

    @Test
    void restAndClientIdsShareTheMachineIdAndTimeButNeverCollide() {
        clock.advance(Duration.ofSeconds(1));
        long rest = idOf(Http.json(http.get("/vesta/genid")));
        long client = BatchProtocol.decode(http.getBytes(BatchProtocol.PATH + "?count=1").body())[0];

        Id restFields = CODEC.expId(rest);
        Id clientFields = CODEC.expId(client);
        assertThat(restFields).isEqualTo(new Id(MACHINE, 0, restFields.time(), 2, 0, 0));
        assertThat(clientFields).isEqualTo(new Id(MACHINE, 0, restFields.time(), 1, 0, 0));
        assertThat(rest).isNotEqualTo(client);
        assertThat(idService.expId(idService.genId()).genMethod()).as("the application's IdService is the REST generator")
                .isEqualTo(2);
    }

    @Test
    void aClockStepBackBeyondTheWaitIs503WithTheReasonUntilTheClockCatchesUp() {
        http.get("/vesta/genid");
        http.getBytes(BatchProtocol.PATH + "?count=1");
        clock.advance(Duration.ofSeconds(-10));
        try {
            for (String path : List.of("/vesta/genid", "/vesta/genids?count=3", BatchProtocol.PATH + "?count=3")) {
                HttpResponse<String> response = http.get(path);
                assertThat(response.statusCode()).as(path).isEqualTo(503);
                assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(response.headers().firstValue("Retry-After")).hasValue("10");
                JsonNode problem = Http.json(response);
                assertThat(problem.get("reason").asString()).isEqualTo("clock-moved-backwards");
                assertThat(problem.get("title").asString()).isEqualTo("IDs cannot be issued: the clock moved backwards");
                assertThat(problem.get("detail").asString()).startsWith("Clock moved backwards: IDs were already issued up to ")
                        .contains("beyond the maximum wait of 1000 ms");
            }
        } finally {
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(http.get("/vesta/genid").statusCode()).isEqualTo(200);
        assertThat(http.getBytes(BatchProtocol.PATH + "?count=3").statusCode()).isEqualTo(200);
    }

    @Test
    void aLostMachineIdLeaseIs503WithTheReasonUntilItIsHeldAgain() {
        // Quotes, a backslash and a line break: the problem body must stay valid JSON.
        lease.revoke("the lease row was taken over by \"node-2\" (C:\\vesta)\nat once");
        try {
            for (String path : List.of("/vesta/genid", BatchProtocol.PATH + "?count=3")) {
                HttpResponse<String> response = http.get(path);
                assertThat(response.statusCode()).as(path).isEqualTo(503);
                JsonNode problem = Http.json(response);
                assertThat(problem.get("reason").asString()).isEqualTo("machine-id-unavailable");
                assertThat(problem.get("detail").asString()).startsWith("Machine ID 1000 is not held by this node")
                        .contains("the lease row was taken over by \"node-2\" (C:\\vesta)\nat once");
            }
        } finally {
            lease.renew(Long.MAX_VALUE);
        }
        assertThat(http.get("/vesta/genid").statusCode()).isEqualTo(200);
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    static class App {

        @Bean
        ManualTimeSource clock() {
            return new ManualTimeSource(START);
        }

        @Bean
        MachineIdLease lease() {
            return new MachineIdLease(Long.MAX_VALUE);
        }

        /** A machine ID whose lease the test can take away, as a database or ZooKeeper provider would. */
        @Bean
        MachineIdProvider machineIdProvider(MachineIdLease lease) {
            return new MachineIdProvider() {

                @Override
                public long acquire(MachineIdRange range, int blockSize) {
                    MachineIdProvider.refuseBlocks(this, blockSize);
                    return range.check("machineId", MACHINE);
                }

                @Override
                public String describe() {
                    return "test lease";
                }

                @Override
                public MachineIdLease lease() {
                    return lease;
                }
            };
        }
    }
}
