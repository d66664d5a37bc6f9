package io.vesta.machine;

import io.vesta.time.AtomicFile;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The local cache file of a leased machine ID: what this host last knew of its lease (the ID, where it is
 * recorded, the time of the last renewal and the lease end), so that a node whose coordinator is unreachable at
 * start-up can start from it, and a restart starts after everything the previous run may have issued. Written
 * through {@link AtomicFile}, so a crash leaves the previous record or the new one, never half of one.
 *
 * <p>The file is a {@link Properties} text. Reading hands back the raw properties rather than an {@link Entry}:
 * records written by older versions lack fields, and what a missing field means is the provider's decision.
 */
public final class MachineIdCacheFile {

    /**
     * One record of the file.
     * @param owner     who holds the ID
     * @param namespace the ID space the ID belongs to
     * @param path      where the coordinator records the ID, to confirm it with
     * @param machineId the ID; with a block, its first
     * @param blockSize how many consecutive machine IDs the holder issues under: 1 for a single ID
     * @param time      the holder's clock at its last successful renewal, Unix milliseconds
     * @param until     the lease end: the holder issues only before it, Unix milliseconds
     * @param closed    whether the holder closed cleanly, {@code until} then being a millisecond after its last ID
     */
    public record Entry(String owner, String namespace, String path, long machineId, int blockSize, long time, long until,
            boolean closed) {
    }

    private final Path file;

    public MachineIdCacheFile(Path file) {
        if (file == null) {
            throw new IllegalArgumentException("file must not be null");
        }
        this.file = file;
    }

    /** Where the record is kept. */
    public Path file() {
        return file;
    }

    /** Replaces the record, durably. */
    public void write(Entry entry) throws IOException {
        String text = "# Vesta's machine ID for this node, used when its coordinator is unreachable at start-up\n"
                + "owner=" + escape(entry.owner()) + "\nnamespace=" + escape(entry.namespace()) + "\npath=" + escape(entry.path())
                + "\nmachineId=" + entry.machineId() + "\nblockSize=" + entry.blockSize() + "\ntime=" + entry.time()
                + "\nuntil=" + entry.until()
                + "\nclosed=" + entry.closed() + "\n";
        AtomicFile.write(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The record's fields as written.
     * @throws java.nio.file.NoSuchFileException when nothing was cached yet
     */
    public Properties read() throws IOException {
        Properties fields = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            fields.load(reader);
        }
        return fields;
    }

    private static String escape(String value) {
        return String.valueOf(value).replace("\\", "\\\\").replace(":", "\\:").replace("=", "\\=");
    }

    @Override
    public String toString() {
        return file.toString();
    }
}
