package io.vesta.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar target/vesta-server.jar} in a JVM of its own on 127.0.0.1 and a free port, as an operator starts
 * it; its output goes to a log file beside its data directory. {@link #stop()} is a SIGTERM (graceful shutdown),
 * {@link #close()} kills what is still running, so no child outlives the test.
 */
final class ServerJvm implements AutoCloseable {

    static final Path JAR = Path.of("target", "vesta-server.jar");

    final int port;
    final Path log;
    private final Process process;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ServerJvm(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Starts the jar with these arguments and waits until its readiness probe says UP. */
    static ServerJvm start(Path dataDir, List<String> args) throws Exception {
        return start(dataDir, args, Map.of());
    }

    /**
     * Starts the jar in {@code dataDir} as its working directory (where an {@code application.yml} is read from),
     * with these arguments and environment variables, and waits until its readiness probe says UP.
     */
    static ServerJvm start(Path dataDir, List<String> args, Map<String, String> environment) throws Exception {
        return start(dataDir, List.of(), args, environment);
    }

    /**
     * As {@link #start(Path, List, Map)}, with options for the JVM after its defaults (so {@code -Xmx64m}
     * replaces the default heap).
     */
    static ServerJvm start(Path dataDir, List<String> jvmOptions, List<String> args, Map<String, String> environment)
            throws Exception {
        List<String> withDataDir = new ArrayList<>(List.of("--vesta.server.data-dir=" + dataDir));
        withDataDir.addAll(args);
        return awaitReady(launch(dataDir, jvmOptions, withDataDir, environment));
    }

    /**
     * Starts the jar in {@code workingDirectory} with exactly these arguments besides its port (no data directory of the
     * test's: the arguments or the defaults give it) and returns at once, without waiting for anything; its output
     * goes to a log file in {@code workingDirectory}.
     */
    static ServerJvm launch(Path workingDirectory, List<String> args) throws IOException {
        return launch(workingDirectory, List.of(), args, Map.of());
    }

    private static ServerJvm launch(Path workingDirectory, List<String> jvmOptions, List<String> args,
            Map<String, String> environment) throws IOException {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(JAR.toAbsolutePath() + " is missing: this test runs after 'package' (mvn verify)");
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Files.createDirectories(workingDirectory);
        Path log = workingDirectory.resolve("server-" + port + ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", JAR.toAbsolutePath().toString(), "--server.port=" + port));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(workingDirectory.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().putAll(environment);
        return new ServerJvm(builder.start(), port, log);
    }

    /**
     * Starts the jar in {@code workingDirectory} with exactly these arguments besides its port and these environment
     * variables, and returns at once: {@link #awaitUp} waits for whichever probe the caller names.
     */
    static ServerJvm launch(Path workingDirectory, List<String> args, Map<String, String> environment)
            throws IOException {
        return launch(workingDirectory, List.of(), args, environment);
    }

    /** {@link #launch}, then waits until the readiness probe says UP (and kills the process if it never does). */
    static ServerJvm startIn(Path workingDirectory, List<String> args) throws Exception {
        return awaitReady(launch(workingDirectory, args));
    }

    private static ServerJvm awaitReady(ServerJvm server) throws Exception {
        try {
            server.awaitReady(Duration.ofSeconds(120));
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Everything the process has written so far. */
    String output() throws IOException {
        return Files.readString(log);
    }

    private void awaitReady(Duration within) throws Exception {
        awaitUp(port, "/actuator/health/readiness", within);
    }

    /** Waits until {@code GET path} on 127.0.0.1:{@code onPort} answers 200; fails if the process exits or time runs out. */
    void awaitUp(int onPort, String path, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("vesta-server exited with " + process.exitValue() + ":\n" + tail());
            }
            try {
                if (get(onPort, path).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(path + " on port " + onPort + " was not UP within " + within + ":\n" + tail());
            }
            Thread.sleep(200);
        }
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return get(port, path);
    }

    /** A GET on another port of the server, such as its management port. */
    HttpResponse<String> get(int onPort, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + onPort + path)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<byte[]> getBytes(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** SIGTERM, as an orchestrator stops a process: in-flight requests finish, leases are released. */
    int stop() throws InterruptedException {
        signal();
        return awaitExit();
    }

    /** Sends SIGTERM and returns at once. */
    void signal() {
        process.destroy();
    }

    /** The exit code, once the process has exited (within 60 s). */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("vesta-server did not stop within 60 s of SIGTERM");
        }
        return process.exitValue();
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
