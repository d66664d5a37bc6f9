package io.vesta.autoconfigure.server;

import io.vesta.GenMethod;
import io.vesta.Id;
import io.vesta.IdType;
import io.vesta.client.RemoteIdService;
import io.vesta.client.ServersUnavailableException;
import io.vesta.layout.IdCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Three central servers (each its own Spring Boot application on 127.0.0.1, machine IDs 924-926) and a client
 * application under load from several threads, while servers stop and come back. Every loop and wait is bounded.
 */
class ClientFailoverTests {

    private static final IdCodec CODEC = new IdCodec(IdCodec.DEFAULT_EPOCH);
    private static final long[] MACHINES = { 924, 925, 926 };
    /** IDs one load thread keeps at most, so that memory stays bounded however fast the machine is. */
    private static final int MAX_IDS_PER_THREAD = 2_000_000;

    @TempDir
    Path dir;

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @AfterEach
    void closeEverything() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    private ConfigurableApplicationContext startServer(long machineId, int port) {
        ConfigurableApplicationContext server = new SpringApplicationBuilder(App.class).properties(
                "vesta.server.enabled=true", "vesta.machine-id.value=" + machineId, "vesta.type=min-granularity",
                "vesta.time-store.file=" + dir.resolve("vesta-time-" + machineId), "server.address=127.0.0.1",
                "server.port=" + port, "spring.main.banner-mode=off", "logging.level.root=warn").run();
        contexts.add(server);
        return server;
    }

    private static int port(ConfigurableApplicationContext server) {
        return server.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    private static String url(ConfigurableApplicationContext server) {
        return "http://127.0.0.1:" + port(server);
    }

    private static long issued(ConfigurableApplicationContext server) {
        return server.getBean(ServerIdServices.class).centralServer().idsIssued();
    }

    private ConfigurableApplicationContext[] startServers() {
        ConfigurableApplicationContext[] servers = new ConfigurableApplicationContext[MACHINES.length];
        for (int i = 0; i < servers.length; i++) {
            servers[i] = startServer(MACHINES[i], 0);
        }
        return servers;
    }

    private RemoteIdService startClient(ConfigurableApplicationContext[] servers, String... properties) {
        String urls = Arrays.stream(servers).map(ClientFailoverTests::url).collect(Collectors.joining(","));
        ConfigurableApplicationContext client = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("vesta.mode=client", "vesta.type=min-granularity", "vesta.client.servers=" + urls,
                        "vesta.client.prefetch=200", "vesta.client.timeout=2s", "vesta.client.backoff.initial=20ms",
                        "vesta.client.backoff.max=200ms", "spring.main.banner-mode=off", "logging.level.root=warn")
                .properties(properties).run();
        contexts.add(client);
        return client.getBean(RemoteIdService.class);
    }

    @Test
    void aClientUnderLoadRidesOutAServerStoppingAndComingBackWithoutAFailureOrARepeat() throws Exception {
        ConfigurableApplicationContext[] servers = startServers();
        RemoteIdService client = startClient(servers);
        int port = port(servers[1]);

        try (Load load = new Load(client, 4)) {
            load.awaitIds(50_000);
            ServerIdServices stopping = servers[1].getBean(ServerIdServices.class);
            servers[1].close();
            long issuedBeforeStop = stopping.centralServer().idsIssued();
            long stopped = System.currentTimeMillis();
            long countAtStop = load.count();
            load.awaitIds(countAtStop + 50_000);

            long restarting = System.currentTimeMillis();
            servers[1] = startServer(MACHINES[1], port);
            load.awaitUntil(() -> load.machineSeenSince(925, restarting));
            load.awaitIds(load.count() + 50_000);
            load.stop();

            assertThat(load.failures).isEmpty();
            long[] ids = load.ids();
            assertThat(ids.length).isGreaterThan(150_000);
            assertUnique(ids);
            Map<Long, Long> perMachine = new HashMap<>();
            for (long id : ids) {
                Id fields = CODEC.expId(id);
                assertThat(fields.genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
                assertThat(fields.type()).isEqualTo(IdType.MIN_GRANULARITY.code());
                assertThat(fields.machine()).isBetween(924L, 926L);
                perMachine.merge(fields.machine(), 1L, Long::sum);
                if (fields.machine() == 925) {
                    long issuedAt = CODEC.transTime(IdType.MIN_GRANULARITY, fields.time()).toEpochMilli();
                    assertThat(issuedAt < stopped || issuedAt >= restarting)
                            .as("ID %d of machine 925 issued at %d, while its server was down (%d-%d)", id, issuedAt, stopped, restarting)
                            .isTrue();
                }
            }
            // Each ID carries the machine ID of a server that issued at least as many IDs.
            assertThat(perMachine.get(924L)).isPositive().isLessThanOrEqualTo(issued(servers[0]));
            assertThat(perMachine.get(925L)).isPositive().isLessThanOrEqualTo(issuedBeforeStop + issued(servers[1]));
            assertThat(perMachine.get(926L)).isPositive().isLessThanOrEqualTo(issued(servers[2]));
        }
    }

    @Test
    void withoutAFallbackGenIdFailsWithinTheTimeoutListingEveryServerAndItsError() throws Exception {
        // Closed servers refuse connections at once: the bound is generous for a loaded CI machine, not a race.
        ConfigurableApplicationContext[] servers = startServers();
        RemoteIdService client = startClient(servers, "vesta.client.timeout=2s");
        List<String> urls = Arrays.stream(servers).map(ClientFailoverTests::url).toList();
        client.genId();
        for (ConfigurableApplicationContext server : servers) {
            server.close();
        }

        // What is buffered is still handed out: at most the current batch and the next.
        ServersUnavailableException failure = null;
        long failedAfterNanos = 0;
        for (int i = 0; i <= 2 * client.prefetch() && failure == null; i++) {
            long started = System.nanoTime();
            try {
                client.genId();
            } catch (ServersUnavailableException e) {
                failure = e;
                failedAfterNanos = System.nanoTime() - started;
            }
        }

        assertThat(failure).as("genId() fails once the buffer is used up").isNotNull();
        assertThat(Duration.ofNanos(failedAfterNanos)).isLessThan(client.timeout());
        assertThat(failure.failures()).extracting(f -> f.server().toString()).containsExactlyInAnyOrderElementsOf(urls);
        assertThat(failure.failures()).allSatisfy(f -> assertThat(f.error()).isNotBlank());
        assertThat(failure).hasMessageStartingWith("No Vesta server issued IDs; 3 servers tried: ");
        for (String url : urls) {
            assertThat(failure).hasMessageContaining(url);
        }
        assertThatThrownBy(client::genId).isInstanceOf(ServersUnavailableException.class);
    }

    @Test
    void withTheEmbeddedFallbackTheClientKeepsIssuingLocalIdsAndGoesBackToTheServersWhenOneAnswers() throws Exception {
        ConfigurableApplicationContext[] servers = startServers();
        RemoteIdService client = startClient(servers, "vesta.client.fallback=embedded", "vesta.machine-id.value=7");
        int port = port(servers[0]);

        try (Load load = new Load(client, 3)) {
            load.awaitIds(20_000);
            servers[0].close();
            servers[1].close();
            long closingLast = System.currentTimeMillis();
            servers[2].close();
            load.awaitUntil(() -> client.fallbackIds() > 20_000);

            long restarting = System.currentTimeMillis();
            servers[0] = startServer(MACHINES[0], port);
            load.awaitUntil(() -> load.machineSeenSince(924, restarting));
            long fallbackWhenBack = client.fallbackIds();
            load.awaitIds(load.count() + 20_000);
            load.stop();
            assertThat(client.fallbackIds()).as("no local IDs once a server answers again").isEqualTo(fallbackWhenBack);

            assertThat(load.failures).isEmpty();
            long[] ids = load.ids();
            assertUnique(ids);
            long local = Arrays.stream(ids).filter(id -> CODEC.expId(id).genMethod() == GenMethod.EMBEDDED.code()).count();
            assertThat(local).isGreaterThan(20_000);
            assertThat(Arrays.stream(ids).mapToObj(CODEC::expId)).allSatisfy(id -> {
                if (id.genMethod() == GenMethod.EMBEDDED.code()) {
                    assertThat(id.machine()).isEqualTo(7);
                    assertThat(CODEC.transTime(IdType.MIN_GRANULARITY, id.time()).toEpochMilli())
                            .as("local IDs only while every server is down").isGreaterThanOrEqualTo(closingLast);
                } else {
                    assertThat(id.genMethod()).isEqualTo(GenMethod.CENTRAL_SERVER.code());
                    assertThat(id.machine()).isBetween(924L, 926L);
                }
            });
        }
    }

    private static void assertUnique(long[] ids) {
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                throw new AssertionError("ID " + sorted[i] + " was handed out twice: " + CODEC.expId(sorted[i]));
            }
        }
    }

    /** Threads that call genId() until stopped, keeping every ID and every exception. */
    private static final class Load implements AutoCloseable {

        private static final long MAX_WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

        final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();
        private final List<long[]> buffers = new ArrayList<>();
        private final int[] counts;
        private final RemoteIdService client;

        Load(RemoteIdService client, int threadCount) {
            this.client = client;
            this.counts = new int[threadCount];
            for (int t = 0; t < threadCount; t++) {
                long[] buffer = new long[MAX_IDS_PER_THREAD];
                buffers.add(buffer);
                int index = t;
                Thread thread = new Thread(() -> {
                    int n = 0;
                    try {
                        while (running.get() && n < buffer.length) {
                            buffer[n] = client.genId();
                            n++;
                            if ((n & 255) == 0) {
                                publish(index, n);
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        publish(index, n);
                    }
                }, "load-" + t);
                threads.add(thread);
                thread.start();
            }
        }

        private synchronized void publish(int index, int n) {
            counts[index] = n;
        }

        synchronized long count() {
            return Arrays.stream(counts).asLongStream().sum();
        }

        /** Whether an ID of {@code machine} issued at or after {@code sinceMillis} was handed out; looks at the latest IDs. */
        synchronized boolean machineSeenSince(long machine, long sinceMillis) {
            for (int t = 0; t < counts.length; t++) {
                long[] buffer = buffers.get(t);
                for (int i = Math.max(0, counts[t] - 5_000); i < counts[t]; i++) {
                    Id id = CODEC.expId(buffer[i]);
                    if (id.machine() == machine && id.genMethod() == GenMethod.CENTRAL_SERVER.code()
                            && CODEC.transTime(IdType.MIN_GRANULARITY, id.time()).toEpochMilli() >= sinceMillis) {
                        return true;
                    }
                }
            }
            return false;
        }

        void awaitIds(long count) throws InterruptedException {
            awaitUntil(() -> count() >= count);
        }

        void awaitUntil(BooleanSupplier condition) throws InterruptedException {
            long deadline = System.nanoTime() + MAX_WAIT_NANOS;
            while (!condition.getAsBoolean()) {
                assertThat(failures).isEmpty();
                assertThat(threads).as("load threads still running (buffers not full)").anyMatch(Thread::isAlive);
                assertThat(System.nanoTime()).as("condition reached within 30 s").isLessThan(deadline);
                Thread.sleep(10);
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(TimeUnit.NANOSECONDS.toMillis(MAX_WAIT_NANOS));
                assertThat(thread.isAlive()).isFalse();
            }
        }

        synchronized long[] ids() {
            long[] all = new long[(int) count()];
            int at = 0;
            for (int t = 0; t < counts.length; t++) {
                System.arraycopy(buffers.get(t), 0, all, at, counts[t]);
                at += counts[t];
            }
            return all;
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    static class App {
    }
}
