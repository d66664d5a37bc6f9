package io.vesta.time;

import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.machine.MachineIdBlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * A {@link TimestampStore} in a small text file holding the mark in Unix milliseconds. Each save goes through
 * {@link AtomicFile} (a forced temporary file renamed over the old one, then the directory forced), so a crash
 * leaves either the old mark or the new one, never a torn write or a rename the disk never saw.
 *
 * <p>While open, the store holds an exclusive lock on a sibling {@code .lock} file (not on the mark itself,
 * which each save replaces): a second generator on the same file, in another process or in this one, refuses
 * to start. The operating system drops the lock when the process dies, so a crash never leaves it held.
 */
public final class FileTimestampStore implements TimestampStore {

    private final Path file;
    private final Path lockFile;
    private FileChannel lockChannel;
    private FileLock lock;

    public FileTimestampStore(Path file) {
        if (file == null) {
            throw new IllegalArgumentException("file must not be null");
        }
        this.file = file.toAbsolutePath();
        this.lockFile = this.file.resolveSibling(this.file.getFileName() + ".lock");
    }

    /**
     * The store of one generator in {@code directory}, in a file named by what makes its IDs its own:
     * {@code vesta-<type>-machine-<id>-<gen-method>-epoch-<ms>.mark}.
     */
    public static FileTimestampStore forGenerator(Path directory, IdType type, long machineId, GenMethod genMethod,
            Instant epoch) {
        if (directory == null) {
            throw new IllegalArgumentException("directory must not be null");
        }
        String name = "vesta-" + type.name().toLowerCase(Locale.ROOT).replace('_', '-') + "-machine-" + machineId + "-"
                + genMethod.name().toLowerCase(Locale.ROOT).replace('_', '-') + "-epoch-" + epoch.toEpochMilli() + ".mark";
        return new FileTimestampStore(directory.resolve(name));
    }

    /**
     * The store of the generator of {@code block} in {@code directory}: for a single machine ID the file of
     * {@link #forGenerator}, for a block the files of all its machine IDs as one store, which loads the highest of
     * their marks and saves every mark to each. So whatever block size a machine ID is later used with, alone or in
     * another block, its file bounds every ID issued under it.
     */
    public static TimestampStore forBlock(Path directory, IdType type, MachineIdBlock block, GenMethod genMethod,
            Instant epoch) {
        if (block.size() == 1) {
            return forGenerator(directory, type, block.first(), genMethod, epoch);
        }
        List<TimestampStore> files = new ArrayList<>(block.size());
        for (long id = block.first(); id <= block.last(); id++) {
            files.add(forGenerator(directory, type, id, genMethod, epoch));
        }
        return new AllOfTimestampStore(files);
    }

    public Path file() {
        return file;
    }

    @Override
    public synchronized void open() {
        if (lock != null) {
            throw new IllegalStateException("The timestamp store " + file + " is already open");
        }
        FileChannel channel = null;
        try {
            createParent();
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock taken;
            try {
                taken = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                taken = null; // held by another generator of this JVM
            }
            if (taken == null) {
                throw new TimestampStoreLockedException(file, lockFile);
            }
            lockChannel = channel;
            lock = taken;
            channel = null;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot lock the timestamp store " + file + " (" + lockFile + ")", e);
        } finally {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // nothing was taken
                }
            }
        }
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
            AtomicFile.write(file, (epochMillis + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the timestamp store " + file, e);
        }
    }

    private void createParent() throws IOException {
        Path parent = file.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
    }

    @Override
    public synchronized void close() {
        if (lock == null) {
            return;
        }
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot release the lock of the timestamp store " + file, e);
        } finally {
            lock = null;
            lockChannel = null;
        }
    }

    @Override
    public String toString() {
        return "file " + file;
    }
}
