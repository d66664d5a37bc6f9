package io.vesta.benchmarks;

import io.vesta.IdType;
import io.vesta.client.RemoteIdService;
import io.vesta.layout.IdLayout;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded load harness for the central server: starts {@code vesta-server.jar} in its own JVM on
 * 127.0.0.1 and measures, from this JVM on the same machine,
 * <ul>
 *   <li>REST {@code GET /vesta/genid}: requests per second and p50/p99 latency at several concurrency levels, over
 *       keep-alive connections of a minimal HTTP/1.1 client (raw sockets, so that the load generator's own cost
 *       is as small as it can be: it shares the cores with the server);</li>
 *   <li>REST {@code GET /vesta/genids?count=N}: IDs per second;</li>
 *   <li>the Java client ({@link RemoteIdService}) {@code genId()} with its default settings (the batch size adapts
 *       to use), against a server with one machine ID and one with a block of 8: IDs per second, counting only IDs
 *       whose time field lies in the measured whole seconds (or milliseconds), as a share of the server's ceiling
 *       (the block size times the layout's); beside it, how far behind this JVM's clock the decoded time of the IDs
 *       lay when {@code genId()} returned them (every 1,024th ID, the largest), and how many IDs the client dropped
 *       as older than {@code vesta.client.max-id-age}.</li>
 * </ul>
 * Not a unit test and not JMH: every phase has a fixed duration (about three minutes in all).
 * <pre>
 * java -cp vesta-benchmarks/target/benchmarks.jar io.vesta.benchmarks.ServerLoadHarness \
 *     vesta-server/target/vesta-server.jar [--seconds=5] [--rest-only] [--client-only] \
 *     [--type=max-peak|min-granularity] [--block-size=1|8] [--max-id-age=MILLIS] \
 *     [--server-arg=--server.tomcat.threads.max=8 ...]
 * </pre>
 */
public final class ServerLoadHarness {

    static final double TARGET_REST_REQUESTS_PER_SECOND = 20_000;
    static final double TARGET_CLIENT_SHARE_OF_CEILING = 0.9;

    private static final int[] CONCURRENCY = { 1, 4, 16, 64 };
    /** The bearer token of the run with vesta.server.tokens. */
    private static final String TOKEN = "harness-token-" + Long.toHexString(new java.security.SecureRandom().nextLong());
    private static final int[] GENIDS_COUNTS = { 1_000, 100_000 };
    private static final int[] BLOCK_SIZES = { 1, 8 };
    private static final int[] CLIENT_THREADS = { 1, 2 };
    /** With a block of 8, one client with default settings should get at least this many IDs per second. */
    static final double TARGET_CLIENT_IDS_PER_SECOND_BLOCK_OF_8 = 4_000_000;

    private final Path jar;
    private final Duration measure;
    private final List<String> serverArgs;
    private final boolean rest;
    private final boolean client;
    /** The client runs: each type and block size unless narrowed by --type and --block-size. */
    private List<IdType> types = List.of(IdType.values());
    private int[] blockSizes = BLOCK_SIZES;
    /** The client's max-id-age, or null for its default. */
    private Duration maxIdAge;
    private final Duration warmup = Duration.ofSeconds(2);
    private final List<String> rows = new ArrayList<>();
    private final List<String> verdicts = new ArrayList<>();

    private ServerLoadHarness(Path jar, Duration measure, List<String> serverArgs, boolean rest, boolean client) {
        this.jar = jar;
        this.measure = measure;
        this.serverArgs = serverArgs;
        this.rest = rest;
        this.client = client;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !Files.isRegularFile(Path.of(args[0]))) {
            System.err.println("usage: java -cp benchmarks.jar io.vesta.benchmarks.ServerLoadHarness"
                    + " vesta-server/target/vesta-server.jar [--seconds=5]");
            System.exit(2);
        }
        int seconds = 5;
        boolean rest = true;
        boolean client = true;
        List<String> serverArgs = new ArrayList<>();
        List<IdType> types = List.of(IdType.values());
        int[] blockSizes = BLOCK_SIZES;
        Duration maxIdAge = null;
        for (String arg : Arrays.asList(args).subList(1, args.length)) {
            if (arg.startsWith("--seconds=")) {
                seconds = Math.max(1, Math.min(60, Integer.parseInt(arg.substring("--seconds=".length()))));
            } else if (arg.equals("--rest-only")) {
                client = false;
            } else if (arg.equals("--client-only")) {
                rest = false;
            } else if (arg.startsWith("--type=")) {
                types = List.of(IdType.valueOf(arg.substring("--type=".length()).toUpperCase(Locale.ROOT).replace('-', '_')));
            } else if (arg.startsWith("--block-size=")) {
                blockSizes = new int[] { Integer.parseInt(arg.substring("--block-size=".length())) };
            } else if (arg.startsWith("--max-id-age=")) {
                maxIdAge = Duration.ofMillis(Long.parseLong(arg.substring("--max-id-age=".length())));
            } else if (arg.startsWith("--server-arg=")) {
                serverArgs.add(arg.substring("--server-arg=".length()));
            } else {
                throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
        ServerLoadHarness harness = new ServerLoadHarness(Path.of(args[0]), Duration.ofSeconds(seconds), serverArgs, rest, client);
        harness.types = types;
        harness.blockSizes = blockSizes;
        harness.maxIdAge = maxIdAge;
        harness.run();
    }

    private void run() throws Exception {
        System.out.println("Machine: " + machine());
        System.out.println("Load generator and server share this machine's " + Runtime.getRuntime().availableProcessors()
                + " cores; load average at start: " + loadAverage());
        if (rest) {
            try (Server server = Server.start(jar, IdType.MAX_PEAK, serverArgs)) {
                restGenId(server, null);
                restGenIds(server);
            }
            // The same with vesta.server.tokens: what checking a bearer token on every request costs.
            List<String> args = new ArrayList<>(serverArgs);
            args.add("--vesta.server.tokens=" + TOKEN);
            try (Server server = Server.start(jar, IdType.MAX_PEAK, args)) {
                restGenId(server, TOKEN);
            }
        }
        if (client) {
            for (int blockSize : blockSizes) {
                for (IdType type : types) {
                    List<String> args = new ArrayList<>(serverArgs);
                    args.add("--vesta.machine-id.block-size=" + blockSize);
                    try (Server server = Server.start(jar, type, args)) {
                        clientGenId(server, type, blockSize);
                    }
                }
            }
        }
        System.out.println();
        System.out.println("Date: " + LocalDate.now() + "; machine: " + machine() + "; load average at end: " + loadAverage());
        System.out.println();
        System.out.println("| measurement | setting | result | p50 (client: largest lag) | p99 (client: IDs expired) |");
        System.out.println("|---|---|---|---|---|");
        rows.forEach(System.out::println);
        System.out.println();
        verdicts.forEach(System.out::println);
    }

    private void restGenId(Server server, String token) throws Exception {
        String with = token == null ? "" : ", bearer token";
        System.out.println("Warming up the server (GET /vesta/genid" + with + ", 16 connections, 5 s)...");
        HttpLoad.run(server.port, "/vesta/genid", token, 16, Duration.ofSeconds(5), Duration.ofMillis(1));
        double best = 0;
        for (int connections : CONCURRENCY) {
            HttpLoad.Result result = HttpLoad.run(server.port, "/vesta/genid", token, connections, warmup, measure);
            best = Math.max(best, result.perSecond());
            rows.add(String.format(Locale.ROOT, "| REST GET /vesta/genid%s | %d connections | %,.0f requests/s | %s | %s |",
                    with, connections, result.perSecond(), micros(result.percentile(0.50)), micros(result.percentile(0.99))));
            System.out.println(rows.get(rows.size() - 1));
        }
        verdicts.add(String.format(Locale.ROOT, "REST genid%s: best %,.0f requests/s; target %,.0f: %s", with, best,
                TARGET_REST_REQUESTS_PER_SECOND, best >= TARGET_REST_REQUESTS_PER_SECOND ? "met" : "NOT met"));
    }

    private void restGenIds(Server server) throws Exception {
        for (int count : GENIDS_COUNTS) {
            int connections = 2;
            HttpLoad.Result result = HttpLoad.run(server.port, "/vesta/genids?count=" + count, connections, warmup, measure);
            rows.add(String.format(Locale.ROOT, "| REST GET /vesta/genids?count=%d | %d connections | %,.0f IDs/s (%,.0f requests/s) | %s | %s |",
                    count, connections, result.perSecond() * count, result.perSecond(), micros(result.percentile(0.50)),
                    micros(result.percentile(0.99))));
            System.out.println(rows.get(rows.size() - 1));
        }
    }

    private void clientGenId(Server server, IdType type, int blockSize) throws Exception {
        IdLayout layout = IdLayout.of(type);
        long ceiling = layout.ceilingPerSecond() * blockSize;
        for (int threads : CLIENT_THREADS) {
            try (RemoteIdService client = RemoteIdService.builder().servers("http://127.0.0.1:" + server.port).type(type)
                    .maxIdAge(maxIdAge).build()) {
                consume(client, threads, layout, warmup.toMillis() / layout.unitMillis(), new AtomicLong());
                long units = measure.toMillis() / layout.unitMillis();
                long expiredBefore = client.expiredIds();
                AtomicLong maxLagMillis = new AtomicLong();
                long counted = consume(client, threads, layout, units, maxLagMillis);
                double perSecond = counted * 1000.0 / (units * layout.unitMillis());
                double share = perSecond / ceiling;
                rows.add(String.format(Locale.ROOT, "| client genId(), %s, server block of %d | %s, %d thread%s (batch"
                        + " size at the end %,d) | %,.0f IDs/s = %.2f of %,d | largest lag %,d ms | %,d expired |", type,
                        blockSize, maxIdAge == null ? "defaults" : "max-id-age " + maxIdAge.toMillis() + " ms", threads,
                        threads == 1 ? "" : "s", client.batchSize(), perSecond, share, ceiling, maxLagMillis.get(),
                        client.expiredIds() - expiredBefore));
                System.out.println(rows.get(rows.size() - 1));
                verdicts.add(String.format(Locale.ROOT, "Client genId() with defaults, %s, server block of %d, %d thread%s:"
                        + " %.2f of the server's ceiling; target %.2f: %s", type, blockSize, threads, threads == 1 ? "" : "s",
                        share, TARGET_CLIENT_SHARE_OF_CEILING, share >= TARGET_CLIENT_SHARE_OF_CEILING ? "met" : "NOT met"));
                if (blockSize == 8 && threads == 1) {
                    verdicts.add(String.format(Locale.ROOT, "One client with defaults, %s, server block of 8: %,.0f IDs/s;"
                            + " target %,.0f: %s", type, perSecond, TARGET_CLIENT_IDS_PER_SECOND_BLOCK_OF_8,
                            perSecond >= TARGET_CLIENT_IDS_PER_SECOND_BLOCK_OF_8 ? "met" : "NOT met"));
                }
            }
        }
    }

    /**
     * Calls genId() from {@code threads} threads over {@code units} whole time units of the layout, starting at a
     * unit boundary, and counts the IDs whose time field lies in those units: at most the ceiling, however many
     * IDs were prefetched before the window opened. Every 1,024th ID, records in {@code maxLagMillis} how far its
     * decoded time lies behind this JVM's clock as genId() returns it.
     */
    private static long consume(RemoteIdService client, int threads, IdLayout layout, long units, AtomicLong maxLagMillis)
            throws InterruptedException {
        long unitMillis = layout.unitMillis();
        long epochMillis = client.epoch().toEpochMilli();
        long now = System.currentTimeMillis();
        long firstUnit = Math.floorDiv(now - epochMillis, unitMillis) + 1;
        long startMillis = epochMillis + firstUnit * unitMillis;
        long endMillis = startMillis + units * unitMillis;
        int timeShift = layout.timeShift();
        long maxTime = layout.maxTime();
        long lastUnit = firstUnit + units;
        AtomicLong counted = new AtomicLong();
        CountDownLatch done = new CountDownLatch(threads);
        Thread.sleep(Math.max(0, startMillis - System.currentTimeMillis()));
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                long mine = 0;
                while (System.currentTimeMillis() < endMillis) {
                    long time = 0;
                    for (int i = 0; i < 1024; i++) {
                        time = (client.genId() >>> timeShift) & maxTime;
                        if (time >= firstUnit && time < lastUnit) {
                            mine++;
                        }
                    }
                    long lag = System.currentTimeMillis() - (epochMillis + time * unitMillis);
                    maxLagMillis.accumulateAndGet(lag, Math::max);
                }
                counted.addAndGet(mine);
                done.countDown();
            }, "consumer-" + t);
            thread.setDaemon(true);
            thread.start();
        }
        if (!done.await(units * unitMillis + 30_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("consumers did not finish");
        }
        return counted.get();
    }

    private static String micros(long nanos) {
        return nanos < 0 ? "" : String.format(Locale.ROOT, "%,.0f µs", nanos / 1000.0);
    }

    private static String machine() {
        String cpu = "unknown CPU";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim()).findFirst().orElse(cpu);
        } catch (IOException e) {
            // not Linux
        }
        return Runtime.getRuntime().availableProcessors() + " cores, " + cpu + ", " + System.getProperty("os.name") + " "
                + System.getProperty("os.version") + ", Java " + System.getProperty("java.version");
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The server in a JVM of its own on 127.0.0.1 and a free port; destroyed on close. */
    private static final class Server implements AutoCloseable {

        final Process process;
        final int port;
        final Path dataDir;

        private Server(Process process, int port, Path dataDir) {
            this.process = process;
            this.port = port;
            this.dataDir = dataDir;
        }

        static Server start(Path jar, IdType type, List<String> extraArgs) throws Exception {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
            Path dataDir = Files.createTempDirectory("vesta-harness");
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-jar", jar.toString(), "--server.port=" + port, "--server.address=127.0.0.1",
                    "--vesta.type=" + type.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    "--vesta.server.data-dir=" + dataDir, "--logging.level.root=warn", "--spring.main.banner-mode=off"));
            command.addAll(extraArgs);
            System.out.println("Starting the server: " + String.join(" ", command));
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT).start();
            Server server = new Server(process, port, dataDir);
            HttpClient http = HttpClient.newHttpClient();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("the server exited with " + process.exitValue());
                }
                try {
                    // Readiness: open whatever tokens the server requires, and UP only once its machine ID is held.
                    HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                            + "/actuator/health/readiness"))
                            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 200) {
                        return server;
                    }
                } catch (IOException e) {
                    // not up yet
                }
                if (System.nanoTime() > deadline) {
                    server.close();
                    throw new IllegalStateException("the server did not answer within 120 s");
                }
                Thread.sleep(250);
            }
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            DirectoryTrees.delete(dataDir);
        }
    }

    /**
     * Closed-loop HTTP/1.1 load: each connection sends a request, reads the whole response, and sends the next.
     * Raw keep-alive sockets and a hand-rolled response reader keep the client's cost per request at a few
     * microseconds, so that most of the shared CPU goes to the server.
     */
    static final class HttpLoad {

        record Result(long requests, long nanos, long[] latencies) {

            double perSecond() {
                return requests * 1e9 / nanos;
            }

            long percentile(double p) {
                if (latencies.length == 0) {
                    return -1;
                }
                return latencies[(int) Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
            }
        }

        static Result run(int port, String path, int connections, Duration warmup, Duration measure) throws Exception {
            return run(port, path, null, connections, warmup, measure);
        }

        /** @param token sent as {@code Authorization: Bearer token} with every request; none when null */
        static Result run(int port, String path, String token, int connections, Duration warmup, Duration measure)
                throws Exception {
            byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAccept: application/json\r\n"
                    + (token == null ? "" : "Authorization: Bearer " + token + "\r\n") + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII);
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Worker> workers = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Worker worker = new Worker(port, request, measuring, running);
                workers.add(worker);
                worker.start();
            }
            Thread.sleep(warmup.toMillis());
            measuring.set(true);
            long started = System.nanoTime();
            Thread.sleep(measure.toMillis());
            measuring.set(false);
            long nanos = System.nanoTime() - started;
            running.set(false);
            long requests = 0;
            int samples = 0;
            for (Worker worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(30));
                if (worker.failure != null) {
                    throw new IllegalStateException("load connection failed", worker.failure);
                }
                requests += worker.count;
                samples += worker.count;
            }
            long[] latencies = new long[samples];
            int at = 0;
            for (Worker worker : workers) {
                System.arraycopy(worker.latencies, 0, latencies, at, worker.count);
                at += worker.count;
            }
            Arrays.sort(latencies);
            return new Result(requests, nanos, latencies);
        }

        private static final class Worker extends Thread {

            private final int port;
            private final byte[] request;
            private final AtomicBoolean measuring;
            private final AtomicBoolean running;
            private final byte[] buffer = new byte[64 * 1024];
            private int position;
            private int limit;
            private InputStream in;
            long[] latencies = new long[1 << 16];
            int count;
            volatile Throwable failure;

            Worker(int port, byte[] request, AtomicBoolean measuring, AtomicBoolean running) {
                super("load-" + port);
                setDaemon(true);
                this.port = port;
                this.request = request;
                this.measuring = measuring;
                this.running = running;
            }

            @Override
            public void run() {
                Socket socket = null;
                try {
                    while (running.get()) {
                        if (socket == null) {
                            socket = new Socket(InetAddress.getLoopbackAddress(), port);
                            socket.setTcpNoDelay(true);
                            in = socket.getInputStream();
                            position = limit = 0;
                        }
                        OutputStream out = socket.getOutputStream();
                        long started = System.nanoTime();
                        out.write(request);
                        boolean keepAlive = readResponse();
                        long took = System.nanoTime() - started;
                        if (measuring.get()) {
                            if (count == latencies.length) {
                                latencies = Arrays.copyOf(latencies, count * 2);
                            }
                            latencies[count++] = took;
                        }
                        if (!keepAlive) {
                            socket.close();
                            socket = null;
                        }
                    }
                } catch (Throwable e) {
                    failure = e;
                } finally {
                    if (socket != null) {
                        try {
                            socket.close();
                        } catch (IOException e) {
                            // closing anyway
                        }
                    }
                }
            }

            /** Reads one response; returns whether the connection stays open. */
            private boolean readResponse() throws IOException {
                String status = readLine();
                if (!status.startsWith("HTTP/1.1 200")) {
                    throw new IOException("unexpected response: " + status);
                }
                long contentLength = -1;
                boolean chunked = false;
                boolean close = false;
                for (String line = readLine(); !line.isEmpty(); line = readLine()) {
                    int colon = line.indexOf(':');
                    String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                    String value = line.substring(colon + 1).trim();
                    switch (name) {
                        case "content-length" -> contentLength = Long.parseLong(value);
                        case "transfer-encoding" -> chunked = value.equalsIgnoreCase("chunked");
                        case "connection" -> close = value.equalsIgnoreCase("close");
                        default -> {
                        }
                    }
                }
                if (chunked) {
                    for (long size = Long.parseLong(readLine().trim(), 16); size > 0; size = Long.parseLong(readLine().trim(), 16)) {
                        skip(size);
                        readLine();
                    }
                    readLine();
                } else if (contentLength >= 0) {
                    skip(contentLength);
                } else {
                    throw new IOException("a response without a length");
                }
                return !close;
            }

            private String readLine() throws IOException {
                StringBuilder line = new StringBuilder(64);
                while (true) {
                    if (position == limit) {
                        fill();
                    }
                    byte b = buffer[position++];
                    if (b == '\n') {
                        int length = line.length();
                        return length > 0 && line.charAt(length - 1) == '\r' ? line.substring(0, length - 1) : line.toString();
                    }
                    line.append((char) b);
                }
            }

            private void skip(long bytes) throws IOException {
                while (bytes > 0) {
                    if (position == limit) {
                        fill();
                    }
                    int step = (int) Math.min(bytes, limit - position);
                    position += step;
                    bytes -= step;
                }
            }

            private void fill() throws IOException {
                int read = in.read(buffer, 0, buffer.length);
                if (read < 0) {
                    throw new EOFException("the server closed the connection");
                }
                position = 0;
                limit = read;
            }
        }
    }
}
