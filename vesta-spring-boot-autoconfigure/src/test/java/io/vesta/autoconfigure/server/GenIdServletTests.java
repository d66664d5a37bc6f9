package io.vesta.autoconfigure.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The servlet's hand-written success answer and its problem details, read back by a real JSON parser. */
class GenIdServletTests {

    private static final JsonMapper JSON = JsonMapper.shared();

    /**
     * Seeded random IDs of every decimal length, both signs (version-1 IDs are negative longs), and the edges of
     * the long range.
     */
    static LongStream ids() {
        SplittableRandom random = new SplittableRandom(0x5EED_11L);
        LongStream edges = LongStream.of(0, 1, -1, 9, 10, -10, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1,
                1L << 62, 1L << 63 | 1L << 62);
        LongStream everyLength = LongStream.rangeClosed(1, 19).flatMap(digits -> {
            long low = digits == 1 ? 0 : pow10(digits - 1);
            long high = digits == 19 ? Long.MAX_VALUE : pow10(digits) - 1;
            return LongStream.generate(() -> random.nextLong(low, high)).limit(50)
                    .flatMap(id -> LongStream.of(id, -id));
        });
        LongStream versionOne = LongStream.generate(() -> random.nextLong() | Long.MIN_VALUE).limit(500);
        LongStream anyBits = LongStream.generate(random::nextLong).limit(500);
        return LongStream.concat(LongStream.concat(edges, everyLength), LongStream.concat(versionOne, anyBits));
    }

    private static long pow10(long exponent) {
        long value = 1;
        for (int i = 0; i < exponent; i++) {
            value *= 10;
        }
        return value;
    }

    @ParameterizedTest
    @MethodSource("ids")
    void answerIsJsonWithTheIdAsANumberAndAString(long id) {
        JsonNode answer = JSON.readTree(new String(GenIdServlet.answer(id), StandardCharsets.UTF_8));
        assertThat(answer.propertyNames()).containsExactly("id", "idString");
        assertThat(answer.get("id").isIntegralNumber()).isTrue();
        assertThat(answer.get("id").asLong()).isEqualTo(id);
        assertThat(answer.get("idString").isString()).isTrue();
        assertThat(answer.get("idString").asString()).isEqualTo(Long.toString(id));
    }

    @Test
    void problemKeepsEveryCharacterOfItsTextAndItsPropertiesBesideTheStandardMembers() {
        String detail = "quote \" backslash \\ newline \n tab \t nul \u0000 bell \u0007 \u2028 snowman \u2603 \uD83D\uDE00 </script>";
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, detail);
        problem.setTitle("IDs cannot be issued: \"the\" clock");
        problem.setInstance(URI.create("/vesta/genid"));
        problem.setProperty("reason", "clock-moved-backwards");
        problem.setProperty("behindMillis", 1500L);

        JsonNode body = JSON.readTree(JSON.writeValueAsString(ProblemResponses.members(problem)));
        assertThat(body.propertyNames()).containsExactly("title", "status", "detail", "instance", "reason", "behindMillis");
        assertThat(body.get("title").asString()).isEqualTo("IDs cannot be issued: \"the\" clock");
        assertThat(body.get("status").asInt()).isEqualTo(503);
        assertThat(body.get("detail").asString()).isEqualTo(detail);
        assertThat(body.get("instance").asString()).isEqualTo("/vesta/genid");
        assertThat(body.get("reason").asString()).isEqualTo("clock-moved-backwards");
        assertThat(body.get("behindMillis").asLong()).isEqualTo(1500);
    }

    @Test
    void problemNamesItsTypeOnlyWhenItIsNotAboutBlank() {
        ProblemDetail problem = ProblemDetail.forStatus(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(ProblemResponses.members(problem)).doesNotContainKey("type");
        problem.setType(URI.create("https://vesta.io/problems/clock"));
        assertThat(ProblemResponses.members(problem)).containsEntry("type", "https://vesta.io/problems/clock");
        assertThat(List.copyOf(ProblemResponses.members(problem).keySet())).startsWith("type", "title", "status");
    }
}
