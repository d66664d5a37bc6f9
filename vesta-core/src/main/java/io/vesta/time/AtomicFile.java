package io.vesta.time;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * How Vesta replaces a small file whose old content must never be lost to a crash (the timestamp store's mark,
 * the cached machine ID): write a sibling {@code <name>.tmp}, force it to disk, rename it over the file and
 * force the directory. A crash leaves either the old content or the new one, never a torn write or a rename the
 * disk never saw.
 */
public final class AtomicFile {

    private static final boolean WINDOWS = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

    private AtomicFile() {
    }

    /** The temporary sibling that {@link #write} goes through: {@code <name>.tmp}. */
    public static Path temporaryOf(Path file) {
        return file.resolveSibling(file.getFileName() + ".tmp");
    }

    /** Replaces {@code file} with {@code content} durably, creating its directory if needed. */
    public static void write(Path file, byte[] content) throws IOException {
        Path target = file.toAbsolutePath();
        Path parent = target.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Path temporary = temporaryOf(target);
        try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        }
        try {
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
        }
        forceDirectory(parent);
    }

    /**
     * A rename is an update of the directory, and until the directory reaches the disk a power cut can bring
     * the old file back, or no file at all, after the caller acted on the new one. Windows cannot open a
     * directory as a channel, and makes a completed rename durable with the file's own metadata.
     */
    private static void forceDirectory(Path directory) throws IOException {
        if (directory == null || WINDOWS) {
            return;
        }
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
