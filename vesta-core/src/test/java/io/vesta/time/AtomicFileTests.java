package io.vesta.time;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class AtomicFileTests {

    @TempDir
    Path dir;

    @Test
    void aWriteCreatesTheDirectoryAndLeavesNoTemporaryFile() throws Exception {
        Path file = dir.resolve("a/b/file");
        AtomicFile.write(file, "one\n".getBytes(StandardCharsets.UTF_8));
        assertThat(file).hasContent("one");
        assertThat(AtomicFile.temporaryOf(file)).doesNotExist();
    }

    @Test
    void aWriteReplacesTheWholeFileEvenWhenTheNewContentIsShorter() throws Exception {
        Path file = dir.resolve("file");
        AtomicFile.write(file, "a much longer first content\n".getBytes(StandardCharsets.UTF_8));
        AtomicFile.write(file, "short\n".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(file)).isEqualTo("short\n");
    }

    @Test
    void aTemporaryFileLeftByACrashIsOverwrittenNotAppendedTo() throws Exception {
        Path file = dir.resolve("file");
        Files.writeString(AtomicFile.temporaryOf(file), "torn write of a crashed process, longer than the new one");
        AtomicFile.write(file, "new\n".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(file)).isEqualTo("new\n");
        assertThat(AtomicFile.temporaryOf(file)).doesNotExist();
    }
}
