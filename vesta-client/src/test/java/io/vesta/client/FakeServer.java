package io.vesta.client;

import io.vesta.protocol.BatchProtocol;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.machine.MachineIdRange;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * A stand-in central server on 127.0.0.1 speaking {@link BatchProtocol}, whose behaviour a test switches: serve
 * good batches from a genMethod-1 generator, fail with a problem body, hang, or serve a batch that a test has
 * spoiled.
 */
final class FakeServer implements AutoCloseable {

    static {
        // Without it the JDK server writes headers and body in two segments and Nagle's algorithm holds the
        // second until the client's delayed ACK, 40 ms later: every request would take 40 ms.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    enum Behaviour { SERVE, FAIL, HANG, STALL_BODY }

    private final HttpServer http;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final EmbeddedIdService ids;
    private final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger requests = new AtomicInteger();
    volatile Behaviour behaviour = Behaviour.SERVE;
    volatile UnaryOperator<long[]> spoil = UnaryOperator.identity();
    volatile String epochHeader;
    /** The headers of the last request. */
    volatile Map<String, List<String>> lastHeaders = Map.of();

    FakeServer(long machineId, IdType type) throws IOException {
        this.ids = EmbeddedIdService.builder().type(type).genMethod(GenMethod.CENTRAL_SERVER)
                .machineIdRange(MachineIdRange.SERVER).machineId(machineId).build();
        this.epochHeader = Long.toString(ids.epoch().toEpochMilli());
        this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        http.createContext(BatchProtocol.PATH, this::handle);
        http.setExecutor(executor);
        http.start();
    }

    FakeServer(long machineId) throws IOException {
        this(machineId, IdType.MAX_PEAK);
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
    }

    EmbeddedIdService generator() {
        return ids;
    }

    /** The base URL of a port nothing listens on: connections are refused. */
    static URI refusing() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        requests.incrementAndGet();
        lastHeaders = Map.copyOf(exchange.getRequestHeaders());
        try (exchange) {
            switch (behaviour) {
                case FAIL -> respond(exchange, 503, "application/problem+json",
                        ("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
                                + "\"detail\":\"Clock moved backwards: \\\"test\\\"\"}").getBytes(StandardCharsets.UTF_8));
                case HANG -> {
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                case STALL_BODY -> {
                    exchange.getResponseHeaders().set("Content-Type", BatchProtocol.MEDIA_TYPE);
                    exchange.sendResponseHeaders(200, 800);
                    OutputStream out = exchange.getResponseBody();
                    out.write(new byte[8]);
                    out.flush();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                case SERVE -> {
                    String query = exchange.getRequestURI().getQuery();
                    int count = Integer.parseInt(query.substring(query.indexOf('=') + 1));
                    if (epochHeader != null) {
                        exchange.getResponseHeaders().set(BatchProtocol.EPOCH_HEADER, epochHeader);
                    }
                    respond(exchange, 200, BatchProtocol.MEDIA_TYPE, BatchProtocol.encode(spoil.apply(ids.genIds(count))));
                }
            }
        }
    }

    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        release.countDown();
        http.stop(0);
        executor.shutdownNow();
    }
}
