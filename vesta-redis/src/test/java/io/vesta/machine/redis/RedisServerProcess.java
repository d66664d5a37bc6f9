package io.vesta.machine.redis;

import io.lettuce.core.RedisURI;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code redis-server} of the test's own on 127.0.0.1 and a free port, which the test may kill, pause and start
 * again on the same port; killed when the test ends.
 */
final class RedisServerProcess implements AutoCloseable {

    private final String binary;
    private final int port;
    private final Path dir;
    private final boolean appendOnly;
    private Process process;
    private Integer primaryPort;

    RedisServerProcess(String binary, Path dir, boolean appendOnly) throws IOException {
        this.binary = binary;
        this.dir = dir;
        this.appendOnly = appendOnly;
        try (ServerSocket socket = new ServerSocket(0)) {
            this.port = socket.getLocalPort();
        }
    }

    /** Starts as a replica of the server on 127.0.0.1 and {@code port}. */
    RedisServerProcess replicaOf(int port) {
        this.primaryPort = port;
        return this;
    }

    RedisURI uri() {
        return RedisURI.create("redis://127.0.0.1:" + port);
    }

    RedisServerProcess start() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--dir", dir.toString(), "--protected-mode", "no"));
        if (appendOnly) {
            // Every write on disk before Redis acknowledges it: a restart loses nothing, yet is a new server instance.
            command.addAll(List.of("--appendonly", "yes", "--appendfsync", "always"));
        } else {
            command.addAll(List.of("--appendonly", "no"));
        }
        if (primaryPort != null) {
            command.addAll(List.of("--replicaof", "127.0.0.1", primaryPort.toString()));
        }
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis-" + port + ".log").toFile()).start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return this;
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(binary + " exited with " + process.exitValue() + "; see " + dir);
                }
                Thread.sleep(20);
            }
        }
        throw new IllegalStateException(binary + " did not listen on port " + port + " within 10 s");
    }

    /** Kills the server at once, as a crash would: nothing is saved on the way out. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Stops the process (SIGSTOP): it keeps its connections but answers nothing until {@link #resume()}. */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
        if (exit != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " exited with " + exit);
        }
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            signal("CONT");
            kill();
        }
    }
}
