package io.vesta.server;

import io.vesta.layout.IdCodec;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.time.TimeSource;
import org.springframework.test.context.DynamicPropertyRegistry;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the lease tests of the server share: the server on the db strategy with a short lease, its answers decoded, and
 * a node whose clock runs ahead of the server's by more than the lease, which takes the server's row over as a node
 * would after the server paused for longer than its lease.
 */
final class LeaseTakeover {

    private static final IdCodec CODEC = new IdCodec(IdCodec.DEFAULT_EPOCH);
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern NUMBER = Pattern.compile("\\d+");

    private LeaseTakeover() {
    }

    static void dbStrategy(DynamicPropertyRegistry registry, Path dir) {
        registry.add("vesta.server.data-dir", dir::toString);
        registry.add("vesta.machine-id.strategy", () -> "db");
        registry.add("vesta.machine-id.db.initialize-schema", () -> "always");
        registry.add("vesta.machine-id.db.owner", () -> "server");
        registry.add("vesta.machine-id.db.lease", () -> "2s");
        registry.add("vesta.machine-id.db.heartbeat", () -> "200ms");
    }

    static HttpResponse<String> get(int port, String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static int status(int port, String path) {
        return get(port, path).statusCode();
    }

    /** The machine IDs of the IDs a {@code /vesta/genids} answer holds. */
    static List<Long> machinesOfGenids(int port, int count) {
        HttpResponse<String> answer = get(port, "/vesta/genids?count=" + count);
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        String body = answer.body();
        Matcher ids = NUMBER.matcher(body.substring(body.indexOf("\"ids\":[") + 7, body.indexOf(']')));
        List<Long> machines = new ArrayList<>();
        while (ids.find()) {
            machines.add(CODEC.expId(Long.parseLong(ids.group())).machine());
        }
        assertThat(machines).as(body).hasSize(count);
        return machines;
    }

    static long machineOfGenid(int port) {
        HttpResponse<String> answer = get(port, "/vesta/genid");
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        Matcher id = Pattern.compile("\\{\"id\":(\\d+),").matcher(answer.body());
        assertThat(id.find()).as(answer.body()).isTrue();
        return CODEC.expId(Long.parseLong(id.group(1))).machine();
    }

    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        io.vesta.test.Await.until(what, java.time.Duration.ofSeconds(20), condition);
    }

    /** Takes the server's row over once the server's lease has ended by the taker's clock, 3 s ahead. */
    static DbMachineIdProvider takeOver(DataSource dataSource, long machineId) {
        TimeSource ahead = new TimeSource() {
            @Override
            public long currentTimeMillis() {
                return System.currentTimeMillis() + 3_000;
            }

            @Override
            public boolean sleepUntil(long epochMillis, long maxNanos) {
                return TimeSource.system().sleepUntil(epochMillis - 3_000, maxNanos);
            }
        };
        DbMachineIdProvider taker = DbMachineIdProvider.builder(dataSource).owner("taker").timeSource(ahead)
                .lease(Duration.ofSeconds(60)).heartbeat(Duration.ofSeconds(20)).build();
        assertThat(taker.acquire(new MachineIdRange(machineId, machineId))).isEqualTo(machineId);
        return taker;
    }
}
