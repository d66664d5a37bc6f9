package io.vesta.client;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class IdServerTests {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void backoffDoublesWithEachFailureInARowUpToTheMaximumAndASuccessClearsIt() {
        IdServer server = new IdServer(URI.create("http://10.0.0.1:8080/"), 100 * MS, 350 * MS);

        assertThat(server.failed("a", 0).backoffMillis()).isEqualTo(100);
        assertThat(server.failed("b", 0).backoffMillis()).isEqualTo(200);
        assertThat(server.failed("c", 0).backoffMillis()).isEqualTo(350);
        assertThat(server.failed("d", 0).backoffMillis()).isEqualTo(350);
        assertThat(server.backingOff(349 * MS)).isTrue();
        assertThat(server.backingOff(350 * MS)).isFalse();
        assertThat(server.skipped(100 * MS)).hasToString("http://10.0.0.1:8080/ skipped, backing off 250 ms more after: d");

        server.succeeded();
        assertThat(server.backingOff(0)).isFalse();
        assertThat(server.failed("e", 0).backoffMillis()).isEqualTo(100);
    }

    @Test
    void theLongestBackoffsDoNotOverflow() {
        long hour = TimeUnit.HOURS.toNanos(1);
        IdServer server = new IdServer(URI.create("http://10.0.0.1:8080"), hour, hour);
        for (int i = 0; i < 100; i++) {
            assertThat(server.failed("down", 0).backoffMillis()).isEqualTo(TimeUnit.HOURS.toMillis(1));
        }
    }

    @Test
    void theBatchUrlIsBelowTheBaseUrlWithOrWithoutATrailingSlash() {
        assertThat(new IdServer(URI.create("http://10.0.0.1:8080/"), MS, MS).batchUri(500))
                .isEqualTo(URI.create("http://10.0.0.1:8080/vesta/v1/ids?count=500"));
        assertThat(new IdServer(URI.create("https://ids.example.com/prefix"), MS, MS).batchUri(7))
                .isEqualTo(URI.create("https://ids.example.com/prefix/vesta/v1/ids?count=7"));
    }
}
