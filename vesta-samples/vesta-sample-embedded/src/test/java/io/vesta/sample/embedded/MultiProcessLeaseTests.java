package io.vesta.sample.embedded;

import io.vesta.Id;
import io.vesta.layout.IdCodec;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three JVMs of this sample share one PostgreSQL lease table, issuing IDs for a few seconds; one is killed
 * (SIGKILL, no shutdown hooks) and restarted under the same owner. Every ID written by every process is
 * distinct and decodes to the machine ID its process held.
 */
class MultiProcessLeaseTests {

    private final String table = TestDatabase.uniqueName("vesta_machine_mp");
    private final List<Process> processes = new ArrayList<>();
    private String url;

    @AfterEach
    void cleanUp() throws SQLException {
        processes.forEach(Process::destroyForcibly);
        if (url != null) {
            try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
                statement.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    @Test
    void killedAndRestartedProcessesNeverRepeatAnIdAndEachIdDecodesToItsProcess(@TempDir Path dir) throws Exception {
        url = TestDatabase.POSTGRESQL.url();

        Process a = start(dir, "node-0", "a", "8s");
        Process b = start(dir, "node-1", "b", "8s");
        Process c = start(dir, "node-2", "c", "8s");
        awaitIds(dir.resolve("b.txt"), 2_000, b);
        b.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        Process restarted = start(dir, "node-1", "b-restarted", "4s");

        for (Process process : List.of(a, c, restarted)) {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("process finished in time").isTrue();
            assertThat(process.exitValue()).as("exit code, see the .log files in %s", dir).isZero();
        }

        IdCodec codec = new IdCodec(IdCodec.DEFAULT_EPOCH);
        Map<String, Long> machineOf = new HashMap<>();
        Map<Long, String> seen = new HashMap<>();
        long killedLast = 0;
        long restartedFirst = Long.MAX_VALUE;
        for (String name : List.of("a", "b", "c", "b-restarted")) {
            List<String> lines = Files.readAllLines(dir.resolve(name + ".txt"));
            long machine = Long.parseLong(lines.get(0).substring("machine=".length()));
            machineOf.put(name, machine);
            List<Long> ids = lines.subList(1, lines.size()).stream().filter(line -> !line.isBlank()).map(Long::parseLong).toList();
            assertThat(ids).as("IDs written by %s", name).hasSizeGreaterThan(1_000);
            for (long id : ids) {
                Id fields = codec.expId(id);
                assertThat(fields.machine()).as("machine of an ID from %s", name).isEqualTo(machine);
                String previous = seen.put(id, name);
                assertThat(previous).as("ID %d issued by both %s and %s", id, previous, name).isNull();
            }
            if (name.equals("b")) {
                killedLast = ids.get(ids.size() - 1);
            }
            if (name.equals("b-restarted")) {
                restartedFirst = ids.get(0);
            }
        }
        assertThat(machineOf.get("a")).isNotEqualTo(machineOf.get("b")).isNotEqualTo(machineOf.get("c"));
        assertThat(machineOf.get("b")).isNotEqualTo(machineOf.get("c"));
        assertThat(machineOf.get("b-restarted")).as("the restarted owner gets its machine ID back").isEqualTo(machineOf.get("b"));
        assertThat(restartedFirst).as("the restarted owner issues after its killed run").isGreaterThan(killedLast);
    }

    private Process start(Path dir, String owner, String name, String issueFor) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), EmbeddedSampleApplication.class.getName(),
                "--spring.main.banner-mode=off", "--logging.level.root=WARN",
                "--spring.datasource.url=" + url,
                "--vesta.type=min-granularity",
                "--vesta.machine-id.strategy=db",
                "--vesta.machine-id.db.table=" + table,
                "--vesta.machine-id.db.initialize-schema=always",
                "--vesta.machine-id.db.owner=" + owner,
                "--vesta.machine-id.db.lease=3s",
                "--vesta.machine-id.db.heartbeat=500ms",
                "--issue-for=" + issueFor,
                "--out=" + dir.resolve(name + ".txt"));
        builder.redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
        Process process = builder.start();
        processes.add(process);
        return process;
    }

    private static void awaitIds(Path file, int count, Process process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                try (var lines = Files.lines(file)) {
                    if (lines.count() > count) {
                        return;
                    }
                }
            }
            assertThat(process.isAlive()).as("process writing %s is alive", file).isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError(file + " did not reach " + count + " IDs within 60 s");
    }
}
