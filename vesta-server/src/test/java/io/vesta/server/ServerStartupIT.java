package io.vesta.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@code java -jar vesta-server.jar} starts, or fails to: a data directory given relative to the working directory,
 * and start-up failures that an operator reads as Boot's failure report (what is wrong, what to do), never as a stack
 * trace.
 */
class ServerStartupIT {

    /** A frame of a stack trace, as a logged exception prints it. */
    private static final Pattern STACK_FRAME = Pattern.compile("(?m)^\\s+at [\\w$.]+\\(.*\\)$");

    @TempDir
    Path dir;

    @Test
    void aDataDirectoryRelativeToTheWorkingDirectoryStartsAndServesIds() throws Exception {
        Path workingDirectory = dir.resolve("cwd");
        try (ServerJvm server = ServerJvm.startIn(workingDirectory, List.of("--vesta.server.data-dir=data",
                "--logging.level.root=warn"))) {
            HttpResponse<String> id = server.get("/vesta/genid");
            assertThat(id.statusCode()).as(id.body()).isEqualTo(200);
            assertThat(Files.list(workingDirectory.resolve("data").resolve("time")).map(p -> p.getFileName().toString()))
                    .as("the restart marks").anyMatch(name -> name.endsWith(".mark"));
            assertThat(workingDirectory.resolve("data").resolve("vesta-segments.mv.db")).as("the segment database").isRegularFile();
            assertThat(server.stop()).isIn(0, 143);
        }
    }

    @Test
    void aSecondServerOnTheSameDataDirectoryFailsWithTheReportNamingTheLockedFile() throws Exception {
        Path data = dir.resolve("data");
        try (ServerJvm first = ServerJvm.start(data, List.of("--logging.level.root=warn"));
                ServerJvm second = ServerJvm.launch(dir.resolve("second"), List.of("--vesta.server.data-dir=" + data))) {
            int exit = second.awaitExit();
            String output = second.output();

            assertThat(exit).as(output).isNotZero();
            assertThat(output).contains("APPLICATION FAILED TO START")
                    .contains("Description:").contains(data.resolve("time").toString()).contains(".lock")
                    .contains("Action:").contains("vesta.server.data-dir");
            assertThat(STACK_FRAME.matcher(output).find()).as("a stack trace in the output:\n%s", output).isFalse();
            assertThat(first.get("/vesta/genid").statusCode()).as("the first server is untouched").isEqualTo(200);
        }
    }

    /** A failure no analyzer knows (a data directory that is a file) gets the report too, with its own messages. */
    @Test
    void anyOtherStartupFailureFailsWithTheReportOfItsMessages() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("not-a-directory"), "a file");
        ServerJvm server = ServerJvm.launch(dir, List.of("--vesta.server.data-dir=" + notADirectory));
        try (server) {
            int exit = server.awaitExit();
            String output = server.output();

            assertThat(exit).as(output).isNotZero();
            assertThat(output).contains("APPLICATION FAILED TO START").contains("vesta-server cannot start.")
                    .contains(notADirectory.toString()).contains("Action:").contains("start with --debug")
                    .doesNotContain("Application run failed");
            assertThat(STACK_FRAME.matcher(output).find()).as("a stack trace in the output:\n%s", output).isFalse();
        }
    }

    @Test
    void anUnreachableDatabaseFailsWithTheReportNamingTheDatabase() throws Exception {
        ServerJvm server = ServerJvm.launch(dir, List.of("--vesta.server.data-dir=" + dir.resolve("data"),
                "--spring.datasource.url=jdbc:postgresql://127.0.0.1:1/vesta"));
        try (server) {
            int exit = server.awaitExit();
            String output = server.output();

            assertThat(exit).as(output).isNotZero();
            assertThat(output).contains("APPLICATION FAILED TO START").contains("jdbc:postgresql://127.0.0.1:1/vesta")
                    .contains("Action:").contains("spring.datasource.url");
            assertThat(STACK_FRAME.matcher(output).find()).as("a stack trace in the output:\n%s", output).isFalse();
        }
    }
}
