package io.vesta.test.etcd;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * An etcd cluster of a test's own: 1 or 3 members of the etcd binary (TestVariables' {@code VESTA_TEST_ETCD_SERVER}),
 * each on two free ports of 127.0.0.1 and a data directory under the directory given, which the test may kill
 * (SIGKILL), pause (SIGSTOP), stop and start again on the same ports and data directory. {@link #close()} kills every
 * member, and so does a shutdown hook if the JVM ends first; the data directories stay, for the test to read.
 */
public final class EtcdCluster implements AutoCloseable {

    private static final Duration READY = Duration.ofSeconds(30);
    private static final Pattern MEMBER_ID = Pattern.compile("\"member_id\"\\s*:\\s*\"?(\\d+)");
    private static final Pattern LEADER = Pattern.compile("\"leader\"\\s*:\\s*\"?(\\d+)");
    private static final Pattern CLUSTER_ID = Pattern.compile("\"cluster_id\"\\s*:\\s*\"?(\\d+)");

    private final String binary;
    private final Path dir;
    private final String token;
    private final int[] clientPorts;
    private final int[] peerPorts;
    private final Process[] processes;
    private final Thread hook = new Thread(this::killAll, "etcd-cluster-shutdown");
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private EtcdCluster(String binary, Path dir, int members, String token) throws IOException {
        if (members != 1 && members != 3) {
            throw new IllegalArgumentException("An EtcdCluster has 1 or 3 members, not " + members);
        }
        this.binary = binary;
        this.dir = dir;
        this.token = token;
        this.clientPorts = new int[members];
        this.peerPorts = new int[members];
        this.processes = new Process[members];
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < members; i++) {
                clientPorts[i] = freePort(held);
                peerPorts[i] = freePort(held);
            }
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Starts {@code members} (1 or 3) members of {@code binary} with their data directories under {@code dir}, and waits
     * until the cluster answers (has a leader).
     */
    public static EtcdCluster start(String binary, Path dir, int members) throws IOException, InterruptedException {
        EtcdCluster cluster = new EtcdCluster(binary, dir, members, "vesta-test-" + System.nanoTime());
        try {
            for (int i = 0; i < members; i++) {
                cluster.launch(i);
            }
            cluster.awaitReady();
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** {@link #start(String, Path, int)} with the binary {@code VESTA_TEST_ETCD_SERVER} names. */
    public static EtcdCluster start(Path dir, int members) throws IOException, InterruptedException {
        return start(io.vesta.test.TestVariables.etcdServer(), dir, members);
    }

    private static int freePort(List<ServerSocket> held) throws IOException {
        ServerSocket socket = new ServerSocket(0);
        held.add(socket);
        return socket.getLocalPort();
    }

    public int size() {
        return processes.length;
    }

    /** The client URL of every member, in member order. */
    public List<URI> endpoints() {
        List<URI> endpoints = new ArrayList<>(processes.length);
        for (int i = 0; i < processes.length; i++) {
            endpoints.add(endpoint(i));
        }
        return endpoints;
    }

    /** The client URL of member {@code i}. */
    public URI endpoint(int i) {
        return URI.create("http://127.0.0.1:" + clientPorts[i]);
    }

    /** Member {@code i}'s name in the cluster: {@code m0}, {@code m1}, ... */
    public String name(int i) {
        return "m" + i;
    }

    /** Member {@code i}'s data directory. */
    public Path dataDir(int i) {
        return dir.resolve("etcd-" + name(i));
    }

    private String peerUrl(int i) {
        return "http://127.0.0.1:" + peerPorts[i];
    }

    private String initialCluster() {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < processes.length; i++) {
            members.add(name(i) + "=" + peerUrl(i));
        }
        return String.join(",", members);
    }

    private void launch(int i) throws IOException {
        Files.createDirectories(dir);
        List<String> command = List.of(binary, "--name", name(i), "--data-dir", dataDir(i).toString(),
                "--listen-client-urls", endpoint(i).toString(), "--advertise-client-urls", endpoint(i).toString(),
                "--listen-peer-urls", peerUrl(i), "--initial-advertise-peer-urls", peerUrl(i),
                "--initial-cluster", initialCluster(), "--initial-cluster-token", token,
                "--initial-cluster-state", "new",
                // Short elections, so that a test of a leader's death runs in seconds.
                "--heartbeat-interval", "50", "--election-timeout", "500");
        processes[i] = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("etcd-" + name(i) + ".log").toFile()))
                .start();
    }

    /** Starts member {@code i} again (after {@link #kill} or {@link #stop}) on its ports and data directory. */
    public void start(int i) throws IOException {
        if (processes[i] != null && processes[i].isAlive()) {
            throw new IllegalStateException("etcd member " + name(i) + " is running");
        }
        launch(i);
    }

    /** Kills member {@code i} at once (SIGKILL), as a crash would. */
    public void kill(int i) throws InterruptedException {
        Process process = processes[i];
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Stops member {@code i} the orderly way (SIGTERM), killing it if it has not exited within 10 s. */
    public void stop(int i) throws InterruptedException {
        Process process = processes[i];
        if (process != null && process.isAlive()) {
            signal(process, "CONT");
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                kill(i);
            }
        }
    }

    /** Stops member {@code i} in its tracks (SIGSTOP): it keeps its connections but answers nothing until resumed. */
    public void pause(int i) {
        signal(processes[i], "STOP");
    }

    /** Lets a paused member {@code i} run on (SIGCONT). */
    public void resume(int i) {
        signal(processes[i], "CONT");
    }

    private static void signal(Process process, String signal) {
        try {
            int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start()
                    .waitFor();
            if (exit != 0 && process.isAlive()) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " exited with " + exit);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while signalling etcd", e);
        }
    }

    /** Whether member {@code i}'s process is running (paused counts as running). */
    public boolean isRunning(int i) {
        return processes[i] != null && processes[i].isAlive();
    }

    /**
     * The index of the current leader, as the members that answer within a second report it; -1 when none knows one.
     */
    public int leader() {
        for (int i = 0; i < processes.length; i++) {
            String status = status(i);
            if (status == null) {
                continue;
            }
            String leader = find(LEADER, status);
            if (leader == null || leader.equals("0")) {
                continue;
            }
            for (int j = 0; j < processes.length; j++) {
                String other = j == i ? status : status(j);
                if (other != null && leader.equals(find(MEMBER_ID, other))) {
                    return j;
                }
            }
        }
        return -1;
    }

    /** The cluster ID member {@code i} reports (decimal), or null when it does not answer. */
    public String clusterId(int i) {
        String status = status(i);
        return status == null ? null : find(CLUSTER_ID, status);
    }

    private static String find(Pattern pattern, String json) {
        Matcher matcher = pattern.matcher(json);
        return matcher.find() ? matcher.group(1) : null;
    }

    /** Member {@code i}'s maintenance status (the v3 JSON gateway), or null when it does not answer in a second. */
    private String status(int i) {
        if (!isRunning(i)) {
            return null;
        }
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(endpoint(i).resolve("/v3/maintenance/status"))
                    .timeout(Duration.ofSeconds(1)).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Waits until a member reports a leader and every running member answers a linearizable read. */
    public void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + READY.toNanos();
        while (System.nanoTime() < deadline) {
            if (leader() >= 0 && allRunningHealthy()) {
                return;
            }
            for (int i = 0; i < processes.length; i++) {
                if (processes[i] != null && !processes[i].isAlive() && processes[i].exitValue() != 137
                        && processes[i].exitValue() != 143) {
                    throw new IllegalStateException("etcd member " + name(i) + " exited with "
                            + processes[i].exitValue() + "; see " + dir.resolve("etcd-" + name(i) + ".log"));
                }
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("The etcd cluster " + endpoints() + " did not elect a leader within "
                + READY.toSeconds() + " s; see the logs in " + dir);
    }

    private boolean allRunningHealthy() {
        for (int i = 0; i < processes.length; i++) {
            if (!isRunning(i)) {
                continue;
            }
            try {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(endpoint(i).resolve("/health"))
                        .timeout(Duration.ofSeconds(1)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200 || !response.body().contains("\"true\"")) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** The etcdctl beside the etcd binary. */
    public String etcdctl() {
        Path server = Path.of(binary);
        Path sibling = server.resolveSibling("etcdctl");
        return Files.isExecutable(sibling) ? sibling.toString() : "etcdctl";
    }

    /** Saves a snapshot of member {@code i}'s data to {@code file} ({@code etcdctl snapshot save}). */
    public void snapshotSave(int i, Path file) throws IOException, InterruptedException {
        saveSnapshot(etcdctl(), endpoint(i), file);
    }

    /** Saves a snapshot of the member at {@code endpoint} (any etcd, the suite's too) to {@code file} with {@code etcdctl}. */
    public static void saveSnapshot(String etcdctl, URI endpoint, Path file) throws IOException, InterruptedException {
        run(etcdctl, List.of("--endpoints=" + endpoint, "snapshot", "save", file.toString()));
    }

    /**
     * Replaces the data of this single-member cluster with {@code snapshot} ({@code etcdctl snapshot restore}) under a
     * new cluster token, so that the member comes back, on the same ports, as a new cluster with a new cluster ID: what
     * an operator's restore from a backup does. The member must be stopped or killed first; this starts it.
     */
    public void restore(Path snapshot) throws IOException, InterruptedException {
        if (processes.length != 1) {
            throw new IllegalStateException("restore() is for a single-member cluster; this one has "
                    + processes.length);
        }
        if (isRunning(0)) {
            throw new IllegalStateException("Stop or kill etcd member " + name(0) + " before restoring it");
        }
        Path data = dataDir(0);
        if (Files.exists(data)) {
            try (var paths = Files.walk(data)) {
                for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                    Files.delete(path);
                }
            }
        }
        etcdctl(List.of("snapshot", "restore", snapshot.toString(), "--name", name(0), "--data-dir", data.toString(),
                "--initial-cluster", initialCluster(), "--initial-advertise-peer-urls", peerUrl(0),
                "--initial-cluster-token", token + "-restored-" + System.nanoTime()));
        launch(0);
        awaitReady();
    }

    private void etcdctl(List<String> arguments) throws IOException, InterruptedException {
        run(etcdctl(), arguments);
    }

    private static void run(String etcdctl, List<String> arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(etcdctl);
        command.addAll(arguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("ETCDCTL_API", "3");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(command.stream().collect(Collectors.joining(" ")) + " failed: " + output);
        }
    }

    private void killAll() {
        for (Process process : processes) {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
            }
        }
        for (Process process : processes) {
            if (process != null) {
                try {
                    process.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Kills every member (SIGKILL works on a paused one too); the data directories stay. */
    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run
        }
    }
}
