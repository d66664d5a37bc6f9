package io.vesta.autoconfigure.server;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who reaches which endpoint, over real HTTP written byte for byte ({@link RawHttp}): every endpoint of a server with
 * every optional endpoint on (db leases with lease admin, make-id, segments with their admin), under its canonical
 * path and under the path written differently ({@code ;x} on a segment, a letter {@code %xx}-encoded, {@code //}, {@code /./},
 * {@code /x/../}, a letter in another case, a trailing slash), with no token, an unknown token, a client token and an
 * admin token. A path the container would normalise is refused (400) whatever the token; a path in another case or
 * with a trailing slash is no endpoint (404) and asks for the same token as the canonical one first. The contract,
 * {@code /vesta/openapi.yaml}, is open to every caller under its canonical path only.
 */
@EveryEndpointServer
class ServerPathAccessTests {

    static final String CLIENT = EveryEndpointServer.CLIENT;
    static final String ADMIN = EveryEndpointServer.ADMIN;
    static final String WRONG = "path-wrong-token-5555555555";
    static final String TAG = EveryEndpointServer.TAG;

    @LocalServerPort
    private int port;

    @Autowired
    private DataSource dataSource;

    private JdbcTemplate jdbc;

    @BeforeEach
    void rows() {
        jdbc = EveryEndpointServer.Rows.reset(dataSource);
    }

    /**
     * An endpoint: its method, path segments (the first {@code literal} are fixed words), query and form; an operator's
     * ({@code admin}), or open without a token ({@code open}, the contract).
     */
    record Endpoint(String method, List<String> segments, int literal, String query, String form, boolean admin,
            boolean open) {

        Endpoint(String method, List<String> segments, int literal, String query, String form, boolean admin) {
            this(method, segments, literal, query, form, admin, false);
        }

        String path() {
            return "/" + String.join("/", segments);
        }
    }

    enum Kind {
        /** The path as the endpoint is mapped. */
        CANONICAL,
        /** Written so that the container normalises it to the canonical path: refused. */
        NOT_NORMALISED,
        /** Another path (case, trailing slash): no endpoint, behind the same token as the canonical path. */
        OTHER_PATH
    }

    record Variant(String description, String path, Kind kind) {
    }

    static final List<Endpoint> ENDPOINTS = List.of(
            new Endpoint("GET", List.of("vesta", "genid"), 2, "", null, false),
            new Endpoint("GET", List.of("vesta", "genids"), 2, "?count=1", null, false),
            new Endpoint("GET", List.of("vesta", "v1", "ids"), 3, "?count=1", null, false),
            new Endpoint("GET", List.of("vesta", "expid", "1"), 2, "", null, false),
            // The ID strings of issue 28: the same tokens and path checks with a format, in the path and the query.
            new Endpoint("GET", List.of("vesta", "expid", "0000000000001"), 2, "?format=base32", null, false),
            new Endpoint("GET", List.of("vesta", "genids"), 2, "?count=1&format=base62", null, false),
            new Endpoint("GET", List.of("vesta", "genid"), 2, "?format=base32", null, false),
            new Endpoint("GET", List.of("vesta", "transtime", "1"), 2, "", null, false),
            new Endpoint("GET", List.of("vesta", "status"), 2, "", null, false),
            new Endpoint("GET", List.of("vesta", "segment", TAG), 2, "", null, false),
            new Endpoint("POST", List.of("vesta", "segment", TAG), 2, "", null, false),
            new Endpoint("GET", List.of("vesta", "segments"), 2, "", null, false),
            new Endpoint("POST", List.of("vesta", "makeid"), 2, "", "time=1&seq=1", true),
            new Endpoint("GET", List.of("vesta", "admin", "leases"), 3, "", null, true),
            new Endpoint("DELETE", List.of("vesta", "admin", "leases", "926"), 3, "", null, true),
            // The tag exists: an admin's creation answers 200 and leaves the row alone.
            new Endpoint("POST", List.of("vesta", "admin", "segments", TAG), 3, "", null, true),
            // Public IDs both ways: the public form of 1 under the server's key, and the public form of an ID.
            new Endpoint("GET", List.of("vesta", "admin", "public-ids", ServerPublicIdTests.PUBLIC_1), 3, "", null, true),
            new Endpoint("GET", List.of("vesta", "admin", "public-ids"), 3, "?id=1", null, true),
            // The contract: no token, but in normal form like every path under /vesta/.
            new Endpoint("GET", List.of("vesta", "openapi.yaml"), 2, "", null, false, true));

    /** The canonical path and every way of writing it differently, each segment in turn. */
    static List<Variant> variants(Endpoint endpoint) {
        List<String> s = endpoint.segments();
        String path = endpoint.path();
        String rest = path.substring("/vesta".length());
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("canonical", path, Kind.CANONICAL));
        for (int i = 0; i < s.size(); i++) {
            List<String> params = new ArrayList<>(s);
            params.set(i, s.get(i) + ";x");
            variants.add(new Variant(";x on segment " + i, "/" + String.join("/", params), Kind.NOT_NORMALISED));
            List<String> encoded = new ArrayList<>(s);
            encoded.set(i, "%" + HexFormat.of().formatHex(new byte[] { (byte) s.get(i).charAt(0) }) + s.get(i).substring(1));
            variants.add(new Variant("%xx in segment " + i, "/" + String.join("/", encoded), Kind.NOT_NORMALISED));
        }
        variants.add(new Variant("// in front", "/" + path, Kind.NOT_NORMALISED));
        variants.add(new Variant("// inside", "/vesta/" + rest, Kind.NOT_NORMALISED));
        variants.add(new Variant("/./ in front", "/." + path, Kind.NOT_NORMALISED));
        variants.add(new Variant("/./ inside", "/vesta/." + rest, Kind.NOT_NORMALISED));
        variants.add(new Variant("/x/../ in front", "/x/.." + path, Kind.NOT_NORMALISED));
        variants.add(new Variant("/x/../ inside", "/vesta/x/.." + rest, Kind.NOT_NORMALISED));
        for (int i = 0; i < endpoint.literal(); i++) {
            List<String> cased = new ArrayList<>(s);
            cased.set(i, s.get(i).substring(0, 1).toUpperCase(Locale.ROOT) + s.get(i).substring(1));
            variants.add(new Variant("case of segment " + i, "/" + String.join("/", cased), Kind.OTHER_PATH));
        }
        variants.add(new Variant("all upper case", path.toUpperCase(Locale.ROOT), Kind.OTHER_PATH));
        variants.add(new Variant("trailing slash", path + "/", Kind.OTHER_PATH));
        return variants;
    }

    /** What a variant must be answered, by token: exact, so no variant can reach a handler it should not. */
    static int expected(Endpoint endpoint, Variant variant, String token) {
        Kind kind = variant.kind();
        if (kind == Kind.NOT_NORMALISED) {
            return 400;
        }
        if (endpoint.open()) {
            if (kind == Kind.CANONICAL) {
                return 200;
            }
            // Another case is the contract's path to the token check (no token), then no endpoint; with a trailing slash
            // it is another path under /vesta/, which takes a token.
            boolean takesToken = variant.path().endsWith("/");
            return takesToken && (token == null || token.equals(WRONG)) ? 401 : 404;
        }
        if (token == null || token.equals(WRONG)) {
            return 401;
        }
        if (endpoint.admin() && token.equals(CLIENT)) {
            return 403;
        }
        if (kind == Kind.OTHER_PATH) {
            // Spring MVC matches case and trailing slash exactly: no handler, whatever the method.
            return 404;
        }
        return 200;
    }

    @Test
    void everyEndpointUnderEveryWayOfWritingItsPathAsksForItsOwnTokenOrIsRefused() {
        RawHttp http = new RawHttp(port);
        SoftAssertions softly = new SoftAssertions();
        int requests = 0;
        for (Endpoint endpoint : ENDPOINTS) {
            for (Variant variant : variants(endpoint)) {
                for (String token : new String[] { null, WRONG, CLIENT, ADMIN }) {
                    RawHttp.Response response = http.send(endpoint.method(), variant.path() + endpoint.query(), token,
                            endpoint.form(), Map.of());
                    requests++;
                    int status = expected(endpoint, variant, token);
                    String who = token == null ? "no token" : token.equals(WRONG) ? "an unknown token"
                            : token.equals(CLIENT) ? "the client token" : "the admin token";
                    softly.assertThat(response.status()).as("%s %s (%s) with %s: %s", endpoint.method(), variant.path(),
                            variant.description(), who, response).isEqualTo(status);
                    if (status == 200 && endpoint.open()) {
                        softly.assertThat(response.header("Content-Type")).as("%s with %s", variant.path(), who)
                                .startsWith("application/yaml");
                        softly.assertThat(response.body()).as("%s with %s", variant.path(), who).startsWith("openapi: 3.1.0");
                    }
                    if (status != 200) {
                        softly.assertThat(response.header("Content-Type")).as("%s %s with %s", endpoint.method(),
                                variant.path(), who).startsWith("application/problem+json");
                    }
                    if (variant.kind() == Kind.NOT_NORMALISED) {
                        softly.assertThat(response.body()).as("%s %s", endpoint.method(), variant.path())
                                .contains("\"reason\":\"path-not-normalised\"");
                    }
                }
            }
        }
        softly.assertAll();
        assertThat(requests).isGreaterThan(600);
        assertThat(EveryEndpointServer.Rows.generationOf925(jdbc))
                .as("the live lease of another node is untouched").isEqualTo(3);
    }

    /** The requests of issue 22, as they were written there: each reached its handler without the right token. */
    @Test
    void theRequestsThatWentPastTheTokensAreRefused() {
        RawHttp http = new RawHttp(port);
        String makeId = "time=1&seq=1&machine=925";

        assertThat(http.send("GET", "/vesta;x/genids?count=1", null).status()).isEqualTo(400);
        assertThat(http.send("GET", "/%76esta/admin/leases", null).status()).isEqualTo(400);
        assertThat(http.send("GET", "//vesta/genid", null).status()).isEqualTo(400);
        assertThat(http.send("GET", "/./vesta/genid", null).status()).isEqualTo(400);
        assertThat(http.send("GET", "/x/../vesta/genid", null).status()).isEqualTo(400);
        assertThat(http.send("POST", "/vesta;x/makeid", null, makeId, Map.of()).status()).isEqualTo(400);
        assertThat(http.send("DELETE", "/vesta;x/admin/leases/925?force=true", null).status()).isEqualTo(400);

        assertThat(http.send("POST", "/vesta/makeid;x", CLIENT, makeId, Map.of()).status()).isEqualTo(400);
        assertThat(http.send("POST", "/vesta/%6dakeid", CLIENT, makeId, Map.of()).status()).isEqualTo(400);
        assertThat(http.send("DELETE", "/vesta/%61dmin/leases/926", CLIENT).status()).isEqualTo(400);
        assertThat(http.send("POST", "/vesta/makeid", CLIENT, makeId, Map.of()).status()).isEqualTo(403);
        assertThat(http.send("DELETE", "/vesta/admin/leases/926", CLIENT).status()).isEqualTo(403);

        RawHttp.Response leases = http.send("GET", "/vesta/admin/leases", CLIENT);
        assertThat(leases.status()).as("the lease table names every node's host: operator information").isEqualTo(403);
        assertThat(leases.body()).contains("\"reason\":\"admin-token-required\"").doesNotContain("live-node");
        assertThat(http.send("GET", "/vesta/admin/leases", ADMIN).body()).contains("live-node");

        assertThat(EveryEndpointServer.Rows.generationOf925(jdbc))
                .as("the forced release never ran").isEqualTo(3);
    }
}
