package io.vesta.autoconfigure.server;

import io.vesta.IdType;
import io.vesta.client.RemoteIdService;
import io.vesta.layout.IdCodec;
import io.vesta.layout.IdLayout;
import io.vesta.time.TimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code vesta.client.max-id-age} on a real central server (a Spring Boot application on a random port) and a client
 * application with the default bound of each type: quiet, bursty and busy callers all get IDs whose decoded time lies
 * within the bound of the client's clock as {@code genId()} returns them. Server and client share one clock, the
 * system's, which the test moves forward at once to stand for a quiet spell, so that no test sleeps through one.
 */
class ClientIdAgeTests {

    private static final IdCodec CODEC = new IdCodec(IdCodec.DEFAULT_EPOCH);

    private final SkippingClock clock = new SkippingClock();
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @AfterEach
    void closeEverything() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    private RemoteIdService start(IdType type, String... clientProperties) {
        String typeName = "vesta.type=" + type.name().toLowerCase(Locale.ROOT).replace('_', '-');
        ConfigurableApplicationContext server = new SpringApplicationBuilder(App.class)
                .initializers(context -> context.getBeanFactory().registerSingleton("clock", clock))
                .properties("vesta.server.enabled=true", "vesta.machine-id.value=924", typeName,
                        "vesta.time-store.enabled=false", "server.address=127.0.0.1", "server.port=0",
                        "spring.main.banner-mode=off", "logging.level.root=warn").run();
        contexts.add(server);
        String url = "http://127.0.0.1:" + server.getEnvironment().getRequiredProperty("local.server.port");
        ConfigurableApplicationContext client = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .initializers(context -> context.getBeanFactory().registerSingleton("clock", clock))
                .properties("vesta.mode=client", typeName, "vesta.client.servers=" + url, "spring.main.banner-mode=off",
                        "logging.level.root=warn").properties(clientProperties).run();
        contexts.add(client);
        RemoteIdService service = client.getBean(RemoteIdService.class);
        assertThat(service.maxIdAge()).isEqualTo(RemoteIdService.defaultMaxIdAge(type));
        return service;
    }

    /**
     * The most an ID's decoded time may lie behind the client's clock as genId() returns it: the bound, one time unit
     * (the time field is truncated to it), and room for the thread to be descheduled between the client's check and
     * the test's reading of the clock, which no code can rule out on a loaded machine.
     */
    private static long allowedLagMillis(RemoteIdService client) {
        return client.maxIdAge().toMillis() + IdLayout.of(client.type()).unitMillis() + client.maxIdAge().toMillis() / 2;
    }

    /** How far the ID's decoded time lies behind the clock now. */
    private long lagMillis(RemoteIdService client, long id) {
        return clock.currentTimeMillis() - CODEC.transTime(client.type(), CODEC.expId(id).time()).toEpochMilli();
    }

    @ParameterizedTest
    @EnumSource(IdType.class)
    void aQuietCallerGetsFreshIdsFetchingOnceACallAndDroppingNothingOnceItKnowsItIsQuiet(IdType type) {
        RemoteIdService client = start(type);
        Duration gap = client.maxIdAge().multipliedBy(3);
        long allowed = allowedLagMillis(client);
        client.genId();

        long batchesBefore = 0;
        long expiredBefore = 0;
        for (int call = 0; call < 8; call++) {
            if (call == 3) {
                batchesBefore = client.batchesFetched();
                expiredBefore = client.expiredIds();
            }
            clock.skip(gap);
            long id = client.genId();
            assertThat(lagMillis(client, id)).as("lag of ID %d at call %d", id, call).isLessThanOrEqualTo(allowed);
        }

        assertThat(expiredBefore).as("the first batch grew old in the first gap").isPositive();
        assertThat(client.batchesFetched() - batchesBefore).as("one fetch for each of the last 5 calls").isEqualTo(5);
        assertThat(client.expiredIds()).as("nothing fetched ahead to be thrown away").isEqualTo(expiredBefore);
        assertThat(client.fetchesAhead()).isFalse();
        assertThat(client.batchSize()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(IdType.class)
    void aCallerAQuarterOfTheBoundApartDoesNotFetchForEveryCall(IdType type) {
        RemoteIdService client = start(type);
        Duration gap = client.maxIdAge().dividedBy(4);
        long allowed = allowedLagMillis(client);
        for (int call = 0; call < 10; call++) {
            clock.skip(gap);
            client.genId();
        }
        long batchesBefore = client.batchesFetched();

        for (int call = 0; call < 40; call++) {
            clock.skip(gap);
            long id = client.genId();
            assertThat(lagMillis(client, id)).as("lag of ID %d at call %d", id, call).isLessThanOrEqualTo(allowed);
        }

        // A quarter of the bound apart, with the fetch's own time on top: batches of 3 or 4, one fetch for each.
        assertThat(client.batchesFetched() - batchesBefore).isBetween(10L, 20L);
    }

    @ParameterizedTest
    @EnumSource(IdType.class)
    void aBurstyCallerGetsIdsWithinTheBoundAndTheBurstsLeftoversAreDroppedAndCounted(IdType type) throws Exception {
        RemoteIdService client = start(type);
        long allowed = allowedLagMillis(client);
        Set<Long> seen = new HashSet<>();
        long worst = 0;
        for (int burst = 0; burst < 5; burst++) {
            for (int i = 0; i < 30_000; i++) {
                long id = client.genId();
                worst = Math.max(worst, lagMillis(client, id));
                assertThat(seen.add(id)).as("ID %d handed out twice", id).isTrue();
            }
            clock.skip(client.maxIdAge().multipliedBy(2));
        }

        assertThat(worst).isLessThanOrEqualTo(allowed);
        assertThat(client.expiredIds()).as("what the bursts left in memory grew old in the pauses").isPositive();
    }

    @ParameterizedTest
    @EnumSource(IdType.class)
    void busyCallersGetIdsWithinTheBoundAndLargeBatches(IdType type) throws Exception {
        // At its MAX_PEAK ceiling the server holds a request until the next second: on a loaded machine that and the
        // exchange can pass the default 2 s timeout, which is not what this test is about.
        RemoteIdService client = start(type, "vesta.client.timeout=10s");
        long allowed = allowedLagMillis(client);
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicLong worst = new AtomicLong();
        AtomicLong taken = new AtomicLong();
        AtomicLong largestBatch = new AtomicLong();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            Thread thread = new Thread(() -> {
                try {
                    long count = 0;
                    while (System.nanoTime() < deadline && count < 2_000_000) {
                        long id = client.genId();
                        if (++count % 64 == 0) {
                            worst.accumulateAndGet(lagMillis(client, id), Math::max);
                            largestBatch.accumulateAndGet(client.batchSize(), Math::max);
                        }
                    }
                    taken.addAndGet(count);
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }

        assertThat(failures).isEmpty();
        assertThat(worst.get()).isLessThanOrEqualTo(allowed);
        assertThat(client.fetchesAhead()).isTrue();
        assertThat(largestBatch.get()).as("batches grew for the busy callers").isGreaterThan(client.prefetch());
        assertThat(taken.get()).isGreaterThan(100_000);
    }

    /** The system clock, which the test moves forward at once, as if the time had passed: both of its readings move. */
    static final class SkippingClock implements TimeSource {

        private final AtomicLong skippedMillis = new AtomicLong();

        void skip(Duration amount) {
            skippedMillis.addAndGet(amount.toMillis());
        }

        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis() + skippedMillis.get();
        }

        @Override
        public long nanoTime() {
            return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(skippedMillis.get());
        }

        @Override
        public boolean sleepUntil(long epochMillis, long maxNanos) {
            return TimeSource.system().sleepUntil(epochMillis - skippedMillis.get(), maxNanos);
        }
    }

    @SpringBootConfiguration
    @Import(ServerTestAutoConfigurations.class)
    static class App {
    }
}
