package io.vesta.autoconfigure.server;

import io.vesta.IdFormat;
import io.vesta.publicid.Ff1PublicIds;
import java.net.http.HttpResponse;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /vesta/admin/public-ids/{publicId}} and {@code GET /vesta/admin/public-ids?id=} over real HTTP on a server
 * with public IDs under key 1; {@link ServerPathAccessTests} tries both under every way of writing their paths and
 * every token, and {@code ServerLeaseAdminTests} a server without public IDs (404).
 */
@EveryEndpointServer
class ServerPublicIdTests {

    static final Ff1PublicIds SAME_KEY = Ff1PublicIds.builder()
            .key(1, Base64.getDecoder().decode(EveryEndpointServer.PUBLIC_ID_KEY)).build();
    /** The public form of the ID 1 on this server. */
    static final String PUBLIC_1 = SAME_KEY.toPublic(1);
    static final String ID = "2709772636019233692";
    /** A version-1 ID, written unsigned. */
    static final String VERSION_1 = "11933144673234009500";

    @LocalServerPort
    private int port;

    @Test
    void anAdminConvertsAnIdToItsPublicFormAndBackWithTheDecodedFieldsOfExpid() {
        Http admin = new Http(port, EveryEndpointServer.ADMIN);
        for (String id : new String[] { ID, VERSION_1 }) {
            HttpResponse<String> forward = admin.get("/vesta/admin/public-ids?id=" + id);
            assertThat(forward.statusCode()).as(forward.body()).isEqualTo(200);
            JsonNode conversion = Http.json(forward);
            String publicId = conversion.get("publicId").asString();
            assertThat(publicId).isEqualTo(SAME_KEY.toPublic(Long.parseUnsignedLong(id)));
            JsonNode expid = Http.json(new Http(port, EveryEndpointServer.CLIENT).get("/vesta/expid/" + id));
            assertThat(conversion.get("id")).isEqualTo(expid);

            HttpResponse<String> back = admin.get("/vesta/admin/public-ids/" + publicId.toLowerCase());
            assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
            assertThat(Http.json(back).get("publicId").asString()).isEqualTo(publicId);
            assertThat(Http.json(back).get("id")).isEqualTo(expid);
        }
    }

    @Test
    void anIdInBase32OrBase62HasThePublicFormOfItsDecimal() {
        Http admin = new Http(port, EveryEndpointServer.ADMIN);
        long id = Long.parseUnsignedLong(VERSION_1);
        for (IdFormat format : new IdFormat[] { IdFormat.BASE32, IdFormat.BASE62 }) {
            HttpResponse<String> response = admin.get("/vesta/admin/public-ids?id=" + format.format(id) + "&format="
                    + format.name().toLowerCase());
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            assertThat(Http.json(response).get("publicId").asString()).isEqualTo(SAME_KEY.toPublic(id));
        }
    }

    @Test
    void aPublicIdThatDoesNotDecodeIsA400NamingTheParameterAndTheProblem() {
        Http admin = new Http(port, EveryEndpointServer.ADMIN);
        String altered = PUBLIC_1.substring(0, 9) + (PUBLIC_1.charAt(9) == 'Z' ? 'Y' : 'Z') + PUBLIC_1.substring(10);
        assertProblem(admin.get("/vesta/admin/public-ids/" + altered), "publicId", altered, "\"" + altered
                + "\" is not a public ID: it fails the check under key ID 1: mistyped or altered, or made with another"
                + " key or tweak");
        assertProblem(admin.get("/vesta/admin/public-ids/" + ID), "publicId", ID, "\"" + ID + "\" is not a public ID:"
                + " it has 19 characters, a public ID has 17");
        String otherKey = "9" + PUBLIC_1.substring(1);
        assertProblem(admin.get("/vesta/admin/public-ids/" + otherKey), "publicId", otherKey, "\"" + otherKey
                + "\" is not a public ID: its key ID 9 ('9') is not configured; configured key IDs: 1");
    }

    @Test
    void anIdThatIsNotANumberOrIsMissingIsA400() {
        Http admin = new Http(port, EveryEndpointServer.ADMIN);
        assertProblem(admin.get("/vesta/admin/public-ids?id=abc"), "id", "abc", "id must be a 64-bit integer (signed,"
                + " or unsigned for version-1 IDs), was 'abc'; " + Parameters.ID_FORMS);
        assertProblem(admin.get("/vesta/admin/public-ids?id=1&format=base64"), "format", "base64", "format must be one"
                + " of decimal, base32, base62, was 'base64'");
        HttpResponse<String> missing = admin.get("/vesta/admin/public-ids");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(Http.json(missing).get("parameter").asString()).isEqualTo("id");
    }

    @Test
    void onlyAnAdminTokenConverts() {
        for (String path : new String[] { "/vesta/admin/public-ids?id=1", "/vesta/admin/public-ids/" + PUBLIC_1 }) {
            assertThat(new Http(port, EveryEndpointServer.CLIENT).get(path).statusCode()).isEqualTo(403);
            assertThat(new Http(port, "public-id-wrong-token-0000000").get(path).statusCode()).isEqualTo(401);
            assertThat(new Http(port).get(path).statusCode()).isEqualTo(401);
            assertThat(new Http(port, EveryEndpointServer.ADMIN).get(path).statusCode()).isEqualTo(200);
        }
    }

    private static void assertProblem(HttpResponse<String> response, String parameter, String value, String detail) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = Http.json(response);
        assertThat(problem.get("parameter").asString()).isEqualTo(parameter);
        assertThat(problem.get("value").asString()).isEqualTo(value);
        assertThat(problem.get("detail").asString()).isEqualTo(detail);
    }
}
