package io.vesta.benchmarks.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.test.etcd.EtcdCluster;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** What differs between the lease stores under test: set-up, the nodes' settings, and faults of the store. */
abstract class ChaosBackend implements AutoCloseable {

    final LeaseChaosHarness.Options options;
    final Path dir;
    final String suffix;
    final SplittableRandom random;

    ChaosBackend(LeaseChaosHarness.Options options, Path dir, String suffix, SplittableRandom random) {
        this.options = options;
        this.dir = dir;
        this.suffix = suffix;
        this.random = random;
    }

    abstract String name();

    abstract void start(PrintStream out) throws Exception;

    /** The node's backend options, {@code --name=value}. */
    abstract List<String> nodeArgs(int slot, String owner);

    /** How long until a silent node's machine ID may change hands: what the SIGSTOP pauses are scaled to. */
    abstract long handOverMillis();

    /** How the store names a slot's connections (application_name, CLIENT SETNAME): how a fault finds them. */
    String appName(int slot) {
        return "vesta-chaos-" + suffix + "-" + slot;
    }

    /** Owner names are per slot, so a restarted slot asks for its own ID back. */
    String owner(int slot) {
        return "chaos-" + suffix + "-" + slot;
    }

    /** A fault of the store itself, if it is time for one; called from the harness's loop, must not block long. */
    abstract void tick(long now, LeaseChaosHarness.Run run) throws Exception;

    /**
     * Whether {@link #nodeFault} has faults of the store's side of a node (its connections) to pick from; the stores
     * without (ZooKeeper, etcd) have their faults in {@link #tick}.
     */
    boolean hasNodeFaults() {
        return false;
    }

    /** Node faults that only this backend has: a pick from the loop's random fault. Returns false if none. */
    boolean nodeFault(LeaseChaosHarness.Run run) throws Exception {
        return false;
    }

    /** Store faults still in progress finish before the nodes are checked. */
    void quiesce() throws Exception {
    }

    void describeEnd(PrintStream out) throws Exception {
    }

    boolean orderByGeneration() {
        return false;
    }

    /** One PostgreSQL lease table of the run's own, dropped at the end; faults: pg_terminate_backend. */
    static final class Db extends ChaosBackend {

        private final String table;
        private HikariDataSource admin;
        private final AtomicBoolean stalling = new AtomicBoolean();
        private final ExecutorService staller = faultThread("chaos-table-stall");

        Db(LeaseChaosHarness.Options options, Path dir, String suffix, SplittableRandom random) {
            super(options, dir, suffix, random);
            this.table = "vesta_machine_chaos_" + suffix;
        }

        @Override
        String name() {
            return "db";
        }

        @Override
        void start(PrintStream out) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(options.jdbcUrl());
            config.addDataSourceProperty("ApplicationName", "vesta-chaos-" + suffix + "-harness");
            config.setPoolName("chaos-harness");
            config.setMaximumPoolSize(2);
            config.setConnectionTimeout(5000);
            admin = new HikariDataSource(config);
            // The shipped DDL, through the provider's own method: the table the nodes use is what users get.
            DbMachineIdProvider.builder(admin).table(table).build().initializeSchema();
            out.println("  table " + table + " (created with the shipped DDL; dropped at the end)");
        }

        @Override
        List<String> nodeArgs(int slot, String owner) {
            return List.of("--jdbc-url=" + options.jdbcUrl(), "--table=" + table, "--lease-ms=" + options.leaseMillis(),
                    "--heartbeat-ms=" + options.heartbeatMillis(), "--app-name=" + appName(slot));
        }

        @Override
        long handOverMillis() {
            return options.leaseMillis();
        }

        @Override
        void tick(long now, LeaseChaosHarness.Run run) {
        }

        @Override
        boolean hasNodeFaults() {
            return true;
        }

        @Override
        boolean nodeFault(LeaseChaosHarness.Run run) throws SQLException {
            if (random.nextInt(4) == 0 && run.timeLeft(System.currentTimeMillis()) > 5000 && stalling.compareAndSet(false, true)) {
                stall(run);
                return true;
            }
            // Mostly one node's connections; now and then every node's at once, as a database failover would.
            boolean all = random.nextInt(4) == 0;
            int slot = random.nextInt(options.nodes());
            String pattern = all ? "vesta-chaos-" + suffix + "-%" : appName(slot);
            String sql = "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity"
                    + " WHERE application_name LIKE ? AND application_name <> ? AND pid <> pg_backend_pid()) t WHERE ok";
            try (Connection connection = admin.getConnection(); PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setQueryTimeout(5);
                statement.setString(1, pattern);
                statement.setString(2, "vesta-chaos-" + suffix + "-harness");
                try (ResultSet rs = statement.executeQuery()) {
                    rs.next();
                    long terminated = rs.getLong(1);
                    run.count("conn-kill");
                    run.count("backends terminated", terminated);
                    run.event("pg_terminate_backend " + (all ? "all nodes" : "slot " + slot) + ": " + terminated + " backends");
                }
            }
            return true;
        }

        /**
         * The table stalls for a little longer than a lease: {@code LOCK TABLE ... IN EXCLUSIVE MODE} lets every
         * SELECT through but holds every UPDATE, as a lock held by a migration or a slow disk would. Holders'
         * renewals queue up while their rows expire, nodes waiting for an ID read the expired rows and queue their
         * takeovers behind them: when the lock goes, renewal and takeover of one row run back to back, and both
         * must not succeed. Only this run's own table is locked. With {@code --fallback}, 2 to 3 leases: every holder's
         * lease runs out and it switches to its fallback.
         */
        private void stall(LeaseChaosHarness.Run run) {
            long millis = Math.round(options.leaseMillis() * (options.fallback() ? 2.0 + random.nextDouble()
                    : 1.0 + random.nextDouble() * 0.3));
            run.count("table stall");
            run.event("table " + table + " locked against updates for " + millis + " ms");
            staller.submit(() -> {
                try (Connection connection = admin.getConnection()) {
                    connection.setAutoCommit(false);
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
                        Thread.sleep(millis);
                    } finally {
                        connection.commit();
                        connection.setAutoCommit(true);
                    }
                } catch (Exception e) {
                    System.err.println("table stall: " + e);
                } finally {
                    stalling.set(false);
                }
                return null;
            });
        }

        @Override
        void quiesce() throws Exception {
            staller.submit(() -> null).get(30, TimeUnit.SECONDS);
        }

        @Override
        boolean orderByGeneration() {
            return true;
        }

        @Override
        void describeEnd(PrintStream out) throws SQLException {
            try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement();
                 ResultSet rs = statement.executeQuery("SELECT machine_id, owner, generation FROM " + table + " ORDER BY machine_id")) {
                StringBuilder rows = new StringBuilder();
                while (rs.next()) {
                    rows.append(rows.length() == 0 ? "" : ", ").append(rs.getLong(1)).append(": generation ")
                            .append(rs.getLong(3)).append(" (").append(rs.getString(2).replace("chaos-" + suffix + "-", "slot ")).append(')');
                }
                out.println("  table at the end     " + rows);
            }
        }

        /** Idempotent: the harness's shutdown hook may call it while the run itself does. */
        @Override
        public synchronized void close() {
            staller.shutdownNow();
            if (admin == null || admin.isClosed()) {
                return;
            }
            try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + table);
            } catch (SQLException e) {
                System.err.println("could not drop " + table + ": " + e.getMessage());
            } finally {
                admin.close();
            }
        }
    }

    /**
     * A three-member ensemble in this JVM; faults: a member killed and restarted (one at a time, so a quorum
     * stays), and a second process started under a live node's owner name with a cache file of its own.
     */
    static final class ZooKeeper extends ChaosBackend {

        private TestingCluster cluster;
        private CuratorFramework probe;
        private String connectString;
        private final ExecutorService members = faultThread("chaos-zookeeper-members");
        private final AtomicBoolean memberDown = new AtomicBoolean();
        private long nextMemberFault;
        private long nextTwin;
        private int twins;

        ZooKeeper(LeaseChaosHarness.Options options, Path dir, String suffix, SplittableRandom random) {
            super(options, dir, suffix, random);
        }

        @Override
        String name() {
            return "zookeeper";
        }

        @Override
        void start(PrintStream out) throws Exception {
            List<InstanceSpec> specs = new ArrayList<>();
            for (int i = 1; i <= 3; i++) {
                Path data = Files.createDirectories(dir.resolve("zk-member-" + i));
                // 127.0.0.1 explicitly, not whatever "localhost" resolves to; a short tick for quick elections.
                specs.add(new InstanceSpec(data.toFile(), InstanceSpec.getRandomPort(), InstanceSpec.getRandomPort(),
                        InstanceSpec.getRandomPort(), true, i, 500, 200, null, "127.0.0.1"));
            }
            cluster = new TestingCluster(specs);
            cluster.start();
            connectString = cluster.getConnectString();
            probe = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000, new RetryNTimes(20, 250));
            probe.start();
            if (!probe.blockUntilConnected(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the ZooKeeper ensemble at " + connectString + " did not come up");
            }
            probe.checkExists().forPath("/");
            out.println("  ensemble " + connectString + " (3 members, tickTime 500 ms), namespace " + namespace());
            long now = System.currentTimeMillis();
            nextMemberFault = now + 4000 + random.nextInt(4000);
            nextTwin = now + 3000 + random.nextInt(3000);
        }

        private String namespace() {
            return "chaos-" + suffix;
        }

        @Override
        List<String> nodeArgs(int slot, String owner) {
            List<String> args = new ArrayList<>(List.of("--connect=" + connectString, "--namespace=" + namespace(),
                    "--report-ms=" + options.reportMillis(), "--reclaim-ms=" + options.reclaimMillis(),
                    "--cache-file=" + dir.resolve("zk-cache-slot-" + slot + ".properties")));
            if (options.zkLeaseMillis() != null) {
                args.add("--zk-lease-ms=" + options.zkLeaseMillis());
            }
            return args;
        }

        @Override
        long handOverMillis() {
            return options.reclaimMillis();
        }

        @Override
        void tick(long now, LeaseChaosHarness.Run run) throws Exception {
            if (now >= nextMemberFault && run.timeLeft(now) > 5000 && memberDown.compareAndSet(false, true)) {
                nextMemberFault = now + 6000 + random.nextInt(6000);
                List<InstanceSpec> instances = new ArrayList<>(cluster.getInstances());
                InstanceSpec victim = instances.remove(random.nextInt(instances.size()));
                // With --fallback, every other member fault takes two members down: no quorum, so every node's
                // reports fail until its lease runs out and it switches to its fallback.
                List<InstanceSpec> victims = options.fallback() && random.nextBoolean()
                        ? List.of(victim, instances.get(random.nextInt(instances.size()))) : List.of(victim);
                long downFor = victims.size() > 1 ? Math.round(handOverMillis() * (1.5 + random.nextDouble() * 1.5))
                        : 500 + random.nextInt(1500);
                run.count(victims.size() > 1 ? "quorum loss" : "member restart");
                run.event("ZooKeeper member(s) " + victims.stream().map(v -> String.valueOf(v.getServerId())).toList()
                        + " killed for " + downFor + " ms");
                members.submit(() -> {
                    try {
                        for (InstanceSpec member : victims) {
                            cluster.killServer(member);
                        }
                        Thread.sleep(downFor);
                        for (InstanceSpec member : victims) {
                            cluster.restartServer(member);
                        }
                    } catch (Exception e) {
                        System.err.println("members " + victims + ": " + e);
                    } finally {
                        memberDown.set(false);
                    }
                    return null;
                });
            }
            if (now >= nextTwin && run.timeLeft(now) > 6000 && !run.twinAlive()) {
                nextTwin = now + 6000 + random.nextInt(6000);
                // The owner must hold an ID right now: a second process under a waiting owner only waits too.
                LeaseChaosHarness.NodeProcess target = run.randomRunningNode(holdingSlots());
                if (target != null) {
                    int slot = LeaseChaosHarness.TWIN_SLOTS + twins++;
                    long lifetime = 3000 + random.nextInt(3000);
                    run.startTwin(slot, target.slot, lifetime);
                    run.count("same-owner start");
                    run.event("second process (slot " + slot + ") under slot " + target.slot + "'s owner for " + lifetime + " ms");
                }
            }
        }


        /** Slots whose owner has a node with a machine ID under the namespace; empty if ZooKeeper cannot say. */
        private Set<Integer> holdingSlots() {
            Set<Integer> slots = new HashSet<>();
            String prefix = "chaos-" + suffix + "-";
            try {
                String forever = "/vesta/" + namespace() + "/forever";
                for (String child : probe.getChildren().forPath(forever)) {
                    String data = new String(probe.getData().forPath(forever + "/" + child));
                    if (child.startsWith(prefix) && data.contains("machineId=") && !data.contains("closed=true")) {
                        slots.add(Integer.parseInt(child.substring(prefix.length(), child.lastIndexOf('-'))));
                    }
                }
            } catch (Exception e) {
                // a member down or a node reclaimed meanwhile: any running node will do this time
            }
            return slots;
        }

        @Override
        void quiesce() throws Exception {
            members.submit(() -> null).get(30, TimeUnit.SECONDS);
        }

        @Override
        void describeEnd(PrintStream out) throws Exception {
            String forever = "/vesta/" + namespace() + "/forever";
            if (probe.checkExists().forPath(forever) == null) {
                return;
            }
            Map<String, String> nodes = new TreeMap<>();
            for (String child : probe.getChildren().forPath(forever)) {
                String data = new String(probe.getData().forPath(forever + "/" + child)).replace('\n', ' ').strip();
                nodes.put(child.replace("chaos-" + suffix + "-", "slot "), data.replaceAll("process=\\S+ ?", ""));
            }
            out.println("  nodes at the end     " + nodes.size() + ": " + String.join("; ", nodes.entrySet().stream()
                    .map(e -> e.getKey() + " " + e.getValue().replaceAll("time=\\d+ ?", "").strip()).toList()));
        }

        private boolean closed;

        /** Idempotent: the harness's shutdown hook may call it while the run itself does. */
        @Override
        public synchronized void close() throws Exception {
            if (closed) {
                return;
            }
            closed = true;
            members.shutdownNow();
            if (probe != null) {
                probe.close();
            }
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /**
     * A {@code redis-server} of the run's own on a free port, without persistence; faults: the server killed and started
     * again empty (every lease lost: what the store mark must make safe), the server paused with SIGSTOP for about a
     * lease, and {@code CLIENT KILL} of one node's connection or all of them.
     */
    static final class Redis extends ChaosBackend {

        private final String key;
        private final int port;
        private Process server;
        private final ExecutorService faults = faultThread("chaos-redis-faults");
        private final AtomicBoolean faulting = new AtomicBoolean();
        private long nextServerFault;

        Redis(LeaseChaosHarness.Options options, Path dir, String suffix, SplittableRandom random) throws IOException {
            super(options, dir, suffix, random);
            this.key = "vesta:chaos:" + suffix;
            try (ServerSocket socket = new ServerSocket(0)) {
                this.port = socket.getLocalPort();
            }
        }

        @Override
        String name() {
            return "redis";
        }

        private String url() {
            return "redis://127.0.0.1:" + port;
        }

        @Override
        void start(PrintStream out) throws Exception {
            startServer();
            out.println("  redis-server on 127.0.0.1:" + port + " (no persistence), key " + key);
            nextServerFault = System.currentTimeMillis() + 4000 + random.nextInt(4000);
        }

        private synchronized void startServer() throws Exception {
            server = new ProcessBuilder(options.redisServer(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", dir.toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("redis.log").toFile()))
                    .start();
            long deadline = System.currentTimeMillis() + 10_000;
            while (true) {
                try (Socket ignored = new Socket("127.0.0.1", port)) {
                    return;
                } catch (IOException notYet) {
                    if (!server.isAlive() || System.currentTimeMillis() > deadline) {
                        throw new IllegalStateException(options.redisServer() + " did not listen on port " + port
                                + "; see " + dir.resolve("redis.log"));
                    }
                    Thread.sleep(20);
                }
            }
        }

        private synchronized void killServer() throws InterruptedException {
            server.destroyForcibly();
            server.waitFor();
        }

        private synchronized void signalServer(String signal) throws Exception {
            new ProcessBuilder("kill", "-" + signal, Long.toString(server.pid())).inheritIO().start().waitFor();
        }

        @Override
        List<String> nodeArgs(int slot, String owner) {
            return List.of("--redis-url=" + url(), "--key=" + key, "--lease-ms=" + options.leaseMillis(),
                    "--heartbeat-ms=" + options.heartbeatMillis(), "--max-clock-skew-ms=" + options.maxClockSkewMillis(),
                    "--app-name=" + appName(slot));
        }

        @Override
        long handOverMillis() {
            return options.leaseMillis();
        }

        @Override
        void tick(long now, LeaseChaosHarness.Run run) {
            if (now < nextServerFault || run.timeLeft(now) <= 5000 || !faulting.compareAndSet(false, true)) {
                return;
            }
            nextServerFault = now + 5000 + random.nextInt(6000);
            boolean restart = random.nextInt(3) > 0;
            // With --fallback a pause lasts 1.5 to 3 leases: every holder's lease runs out and it switches to its fallback.
            long millis = restart ? 100 + random.nextInt(700) : Math.round(options.leaseMillis()
                    * (options.fallback() ? 1.5 + random.nextDouble() * 1.5 : 0.5 + random.nextDouble()));
            run.count(restart ? "redis restart" : "redis pause");
            run.event(restart ? "redis-server killed, started again empty after " + millis + " ms"
                    : "redis-server paused (SIGSTOP) for " + millis + " ms");
            faults.submit(() -> {
                try {
                    if (restart) {
                        killServer();
                        Thread.sleep(millis);
                        startServer();
                    } else {
                        signalServer("STOP");
                        try {
                            Thread.sleep(millis);
                        } finally {
                            signalServer("CONT");
                        }
                    }
                } catch (Exception e) {
                    System.err.println("redis fault: " + e);
                } finally {
                    faulting.set(false);
                }
                return null;
            });
        }

        @Override
        boolean hasNodeFaults() {
            return true;
        }

        @Override
        boolean nodeFault(LeaseChaosHarness.Run run) {
            if (faulting.get()) {
                return false;
            }
            boolean all = random.nextInt(4) == 0;
            int slot = random.nextInt(options.nodes());
            String prefix = all ? "vesta-chaos-" + suffix + "-" : appName(slot);
            RedisClient client = RedisClient.create(url());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                connection.setTimeout(Duration.ofSeconds(2));
                long killed = 0;
                for (String line : connection.sync().clientList().split("\n")) {
                    String name = field(line, "name");
                    if (name != null && (all ? name.startsWith(prefix) : name.equals(prefix))) {
                        killed += connection.sync().clientKill(KillArgs.Builder.addr(field(line, "addr")));
                    }
                }
                run.count("conn-kill");
                run.event("CLIENT KILL " + (all ? "all nodes" : "slot " + slot) + ": " + killed + " connections");
                return true;
            } catch (RuntimeException e) {
                return false; // the server is restarting: a node fault of another kind instead
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        }

        private static String field(String line, String name) {
            for (String part : line.split(" ")) {
                if (part.startsWith(name + "=")) {
                    String value = part.substring(name.length() + 1);
                    return value.isEmpty() ? null : value;
                }
            }
            return null;
        }

        @Override
        void quiesce() throws Exception {
            faults.submit(() -> null).get(30, TimeUnit.SECONDS);
        }

        @Override
        void describeEnd(PrintStream out) {
            RedisClient client = RedisClient.create(url());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                Map<String, String> entries = new TreeMap<>(connection.sync().hgetall(key));
                out.println("  hash at the end      " + String.join("; ", entries.entrySet().stream()
                        .map(e -> e.getKey() + ": " + e.getValue().replace("chaos-" + suffix + "-", "slot ")).toList()));
            } catch (RuntimeException e) {
                out.println("  hash at the end      unreadable: " + e.getMessage());
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
            }
        }

        private boolean closed;

        /** Idempotent: the harness's shutdown hook may call it while the run itself does. */
        @Override
        public synchronized void close() throws Exception {
            if (closed) {
                return;
            }
            closed = true;
            faults.shutdownNow();
            if (server != null) {
                if (server.isAlive()) {
                    new ProcessBuilder("kill", "-CONT", Long.toString(server.pid())).start().waitFor();
                }
                server.destroyForcibly();
                server.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * A three-member etcd cluster of the run's own ({@link EtcdCluster}, data under the run's directory), the nodes
     * leasing under a prefix of the run's own. Faults, one at a time: a member killed (SIGKILL) and started again on
     * its data, a member paused (SIGSTOP) and resumed, in half of them the current leader; and the quorum lost, two
     * members killed or paused for 1.5 to 3 leases, so that every lease runs out while no node can renew: each such
     * window (from a lease and the clock skew after the quorum went until it comes back) goes to
     * {@link ChaosChecker#OUTAGES}, where the checker counts any leased ID issued in it.
     */
    static final class Etcd extends ChaosBackend {

        private final String prefix;
        private EtcdCluster cluster;
        private final ExecutorService members = faultThread("chaos-etcd-members");
        private final AtomicBoolean faulting = new AtomicBoolean();
        private final List<String> outages = new CopyOnWriteArrayList<>();
        private long nextMemberFault;

        Etcd(LeaseChaosHarness.Options options, Path dir, String suffix, SplittableRandom random) {
            super(options, dir, suffix, random);
            this.prefix = "/vesta/chaos-" + suffix + "/";
        }

        @Override
        String name() {
            return "etcd";
        }

        @Override
        void start(PrintStream out) throws Exception {
            cluster = EtcdCluster.start(options.etcdServer(), dir.resolve("etcd"), 3);
            out.println("  etcd cluster " + endpoints() + " (3 members, heartbeat 50 ms, election timeout 500 ms),"
                    + " prefix " + prefix);
            nextMemberFault = System.currentTimeMillis() + 3000 + random.nextInt(2000);
        }

        private String endpoints() {
            return String.join(",", cluster.endpoints().stream().map(URI::toString).toList());
        }

        @Override
        List<String> nodeArgs(int slot, String owner) {
            return List.of("--etcd-endpoints=" + endpoints(), "--prefix=" + prefix, "--lease-ms=" + options.leaseMillis(),
                    "--heartbeat-ms=" + options.heartbeatMillis(), "--max-clock-skew-ms=" + options.maxClockSkewMillis());
        }

        @Override
        long handOverMillis() {
            return options.leaseMillis();
        }


        @Override
        void tick(long now, LeaseChaosHarness.Run run) {
            if (now < nextMemberFault || run.timeLeft(now) <= 6000 || !faulting.compareAndSet(false, true)) {
                return;
            }
            int roll = random.nextInt(100);
            boolean quorum = roll < (options.fallback() ? 40 : 25);
            boolean kill = quorum ? random.nextBoolean() : roll < 65;
            boolean leader = random.nextBoolean();
            int first = random.nextInt(3);
            int offset = 1 + random.nextInt(2);
            long downFor = quorum ? Math.round(handOverMillis() * (1.5 + random.nextDouble() * 1.5))
                    : 300 + random.nextInt(1700);
            nextMemberFault = now + downFor + 1500 + random.nextInt(2500);
            members.submit(() -> {
                try {
                    memberFault(run, quorum, kill, leader, first, offset, downFor);
                } catch (Exception e) {
                    System.err.println("etcd member fault: " + e);
                } finally {
                    faulting.set(false);
                }
                return null;
            });
        }

        /**
         * Takes one member (or two: no quorum) down for {@code downFor} ms, the current leader first if {@code leader}
         * and one is known (else {@code first}), the second {@code offset} members after the first, and brings it back;
         * waits until the cluster has a leader again.
         */
        private void memberFault(LeaseChaosHarness.Run run, boolean quorum, boolean kill, boolean leader, int first,
                int offset, long downFor) throws Exception {
            int current = leader ? cluster.leader() : -1;
            List<Integer> victims = new ArrayList<>();
            victims.add(current >= 0 ? current : first);
            if (quorum) {
                victims.add((victims.get(0) + offset) % 3);
            }
            String how = kill ? "killed (SIGKILL)" : "paused (SIGSTOP)";
            run.count(quorum ? "quorum loss" : kill ? "member kill" : "member pause");
            if (current >= 0) {
                run.count("leader fault");
            }
            run.event("etcd member(s) " + victims.stream().map(cluster::name).toList() + (current >= 0 ? " (leader "
                    + cluster.name(current) + " first)" : "") + " " + how + " for " + downFor + " ms");
            for (int member : victims) {
                if (kill) {
                    cluster.kill(member);
                } else {
                    cluster.pause(member);
                }
            }
            long down = System.currentTimeMillis();
            Thread.sleep(downFor);
            long up = System.currentTimeMillis();
            if (quorum && up > down + options.leaseMillis() + options.maxClockSkewMillis()) {
                // From a lease (and the skew) after the quorum went no lease may be in force until it is back.
                outages.add((down + options.leaseMillis() + options.maxClockSkewMillis()) + " " + up);
            }
            // Under the lock close() takes: a member is not started again once the cluster was closed (the harness's
            // shutdown hook may close it while this thread sleeps).
            synchronized (this) {
                if (closed) {
                    return;
                }
                for (int member : victims) {
                    if (kill) {
                        cluster.start(member);
                    } else {
                        cluster.resume(member);
                    }
                }
            }
            cluster.awaitReady();
        }

        @Override
        void quiesce() throws Exception {
            members.submit(() -> null).get(60, TimeUnit.SECONDS);
            Files.write(dir.resolve(ChaosChecker.OUTAGES), outages);
        }

        @Override
        void describeEnd(PrintStream out) throws Exception {
            List<URI> endpoints = cluster.endpoints();
            try (Client client = Client.builder().endpoints(endpoints.toArray(URI[]::new)).build()) {
                ByteSequence key = ByteSequence.from(prefix, StandardCharsets.UTF_8);
                GetResponse response = client.getKVClient().get(key, GetOption.builder().isPrefix(true).build())
                        .get(10, TimeUnit.SECONDS);
                out.println("  keys at the end      " + String.join("; ", response.getKvs().stream()
                        .map(kv -> kv.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length()) + ": "
                                + kv.getValue().toString(StandardCharsets.UTF_8).replace("chaos-" + suffix + "-", "slot ")
                                + " (mod revision " + kv.getModRevision() + ")").toList()));
            } catch (Exception e) {
                out.println("  keys at the end      unreadable: " + e);
            }
        }

        private boolean closed;

        /** Idempotent: the harness's shutdown hook may call it while the run itself does. */
        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            members.shutdownNow();
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /** The one daemon thread a backend runs its store faults on, one after another, off the harness's loop. */
    static ExecutorService faultThread(String name) {
        return Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    static String fmt(long value) {
        return String.format(Locale.ROOT, "%,d", value);
    }
}
