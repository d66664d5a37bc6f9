package io.vesta.time;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;

/**
 * A {@link TimestampStore} in a small text file holding the mark in Unix milliseconds. Each save writes a
 * sibling temporary file, forces it to disk and renames it over the old one, so a crash leaves either the
 * old mark or the new one, never a torn write.
 */
public final class FileTimestampStore implements TimestampStore {

    private final Path file;
    private final Path temporary;

    public FileTimestampStore(Path file) {
        if (file == null) {
            throw new IllegalArgumentException("file must not be null");
        }
        this.file = file.toAbsolutePath();
        this.temporary = this.file.resolveSibling(this.file.getFileName() + ".tmp");
    }

    public Path file() {
        return file;
    }

    @Override
    public OptionalLong load() {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the timestamp store " + file, e);
        }
        try {
            return OptionalLong.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            throw new IllegalStateException("The timestamp store " + file + " holds '" + text
                    + "', not a time in Unix milliseconds; fix or delete it only if you are sure no IDs were issued"
                    + " after the clock's current time", e);
        }
    }

    @Override
    public void save(long epochMillis) {
        try {
            Path parent = file.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(ByteBuffer.wrap((epochMillis + "\n").getBytes(StandardCharsets.US_ASCII)));
                channel.force(true);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the timestamp store " + file, e);
        }
    }

    @Override
    public String toString() {
        return "file " + file;
    }
}
