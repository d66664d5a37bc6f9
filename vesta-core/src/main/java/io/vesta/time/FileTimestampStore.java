package io.vesta.time;

import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.layout.IdLayout;
import io.vesta.layout.IssuingLayout;
import io.vesta.machine.MachineIdBlock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.vesta.SettingNames.kebab;

/**
 * A {@link TimestampStore} in a small text file. Each save goes through {@link AtomicFile} (a forced temporary file
 * renamed over the old one, then the directory forced), so a crash leaves either the old marks or the new ones, never
 * a torn write or a rename the disk never saw.
 *
 * <p>The file holds one line per layout the machine ID issued under ({@link IssuingLayout#highBits()}: version, type
 * and gen-method), with the epoch and the mark it was written under:
 * <pre>
 * mark=1764930000000 version=0 type=max-peak gen-method=embedded epoch=1420041600000
 * </pre>
 * A file of Vesta 0.1 holds a bare number, a mark of unknown layout ({@link RestartMark}); the first save replaces it.
 *
 * <p>While open, the store holds an exclusive lock on a sibling {@code .lock} file (not on the mark itself,
 * which each save replaces): a second generator on the same file, in another process or in this one, refuses
 * to start. The operating system drops the lock when the process dies, so a crash never leaves it held.
 */
public final class FileTimestampStore implements TimestampStore {

    /** The name {@link #forGenerator} gave before marks recorded their layout: one file per type and epoch. */
    private static final Pattern LEGACY_NAME = Pattern.compile(
            "vesta-(max-peak|min-granularity)-machine-(\\d+)-(embedded|central-server|rest)-epoch-(-?\\d+)\\.mark");

    private final Path file;
    private final Path lockFile;
    /** Where files of the old naming for this machine ID and gen-method may lie, or null. */
    private final Path legacyDirectory;
    private final long legacyMachineId;
    private final GenMethod legacyGenMethod;
    private FileChannel lockChannel;
    private FileLock lock;

    public FileTimestampStore(Path file) {
        this(file, null, -1, null);
    }

    private FileTimestampStore(Path file, Path legacyDirectory, long legacyMachineId, GenMethod legacyGenMethod) {
        if (file == null) {
            throw new IllegalArgumentException("file must not be null");
        }
        this.file = file.toAbsolutePath();
        this.lockFile = this.file.resolveSibling(this.file.getFileName() + ".lock");
        this.legacyDirectory = legacyDirectory;
        this.legacyMachineId = legacyMachineId;
        this.legacyGenMethod = legacyGenMethod;
    }

    /**
     * The store of one generator in {@code directory}, in a file named by the machine ID and gen-method:
     * {@code vesta-machine-<id>-<gen-method>.mark}. Type, version and epoch are not in the name but in the file, so a
     * generator restarted with another one reads the marks of the old and can tell whether its IDs would repeat them.
     * Files of the former naming, {@code vesta-<type>-machine-<id>-<gen-method>-epoch-<ms>.mark}, are read too: each
     * is a mark of the type, gen-method and epoch in its name, for both versions (the name did not tell them apart).
     *
     * @param type  not part of the name; kept for callers of the former naming
     * @param epoch not part of the name; kept for callers of the former naming
     */
    public static FileTimestampStore forGenerator(Path directory, IdType type, long machineId, GenMethod genMethod,
            Instant epoch) {
        if (directory == null) {
            throw new IllegalArgumentException("directory must not be null");
        }
        String name = "vesta-machine-" + machineId + "-" + kebab(genMethod) + ".mark";
        return new FileTimestampStore(directory.resolve(name), directory, machineId, genMethod);
    }

    /**
     * The store of the generator of {@code block} in {@code directory}: for a single machine ID the file of
     * {@link #forGenerator}, for a block the files of all its machine IDs as one store, which loads the marks of
     * all of them and saves every mark to each. So whatever block size a machine ID is later used with, alone or in
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

    /** The highest mark the file holds, of any layout. */
    @Override
    public OptionalLong load() {
        return read().stream().mapToLong(RestartMark::millis).max();
    }

    /** The marks of the file, and of the files of the former naming for this machine ID and gen-method. */
    @Override
    public List<RestartMark> loadAll() {
        List<RestartMark> marks = new ArrayList<>(read());
        if (legacyDirectory != null) {
            marks.addAll(readLegacy());
        }
        return marks;
    }

    /** Replaces the mark of unknown layout, keeping those of known layouts. */
    @Override
    public synchronized void save(long epochMillis) {
        List<RestartMark> marks = new ArrayList<>(read());
        marks.removeIf(mark -> mark.layout() == null);
        marks.add(new RestartMark(null, epochMillis));
        write(marks);
    }

    /**
     * Replaces the mark of {@code layout}'s high bits and any mark of unknown layout (the generator that reads a mark
     * of unknown layout takes it as its own), keeping the marks of the other layouts.
     */
    @Override
    public synchronized void save(IssuingLayout layout, long epochMillis) {
        List<RestartMark> marks = new ArrayList<>(read());
        marks.removeIf(mark -> mark.layout() == null || mark.layout().canRepeatIdsOf(layout));
        marks.add(new RestartMark(layout, epochMillis));
        write(marks);
    }

    private void write(List<RestartMark> marks) {
        StringBuilder text = new StringBuilder(
                "# Vesta restart marks: every ID issued under a layout lies before its mark (Unix ms)\n");
        marks.stream().sorted(Comparator.comparingLong(mark -> mark.layout() == null ? -1 : mark.layout().highBits()))
                .forEach(mark -> text.append(format(mark)).append('\n'));
        try {
            AtomicFile.write(file, text.toString().getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the timestamp store " + file, e);
        }
    }

    private static String format(RestartMark mark) {
        IssuingLayout layout = mark.layout();
        if (layout == null) {
            return Long.toString(mark.millis());
        }
        return "mark=" + mark.millis() + " version=" + layout.version() + " type=" + kebab(layout.type())
                + " gen-method=" + kebab(layout.genMethod()) + " epoch=" + layout.epoch().toEpochMilli();
    }

    private List<RestartMark> read() {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the timestamp store " + file, e);
        }
        List<RestartMark> marks = new ArrayList<>();
        for (String raw : lines) {
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            marks.add(parse(line));
        }
        return marks;
    }

    private RestartMark parse(String line) {
        try {
            if (!line.contains("=")) {
                return new RestartMark(null, Long.parseLong(line));
            }
            Map<String, String> fields = new HashMap<>();
            for (String field : line.split("\\s+")) {
                int eq = field.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("no key=value: " + field);
                }
                fields.put(field.substring(0, eq), field.substring(eq + 1));
            }
            IssuingLayout layout = new IssuingLayout(Long.parseLong(required(fields, "version")),
                    IdType.valueOf(enumName(required(fields, "type"))),
                    GenMethod.valueOf(enumName(required(fields, "gen-method"))),
                    Instant.ofEpochMilli(Long.parseLong(required(fields, "epoch"))));
            return new RestartMark(layout, Long.parseLong(required(fields, "mark")));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("The timestamp store " + file + " holds '" + line + "', neither a time in"
                    + " Unix milliseconds nor 'mark=<ms> version=<0|1> type=<max-peak|min-granularity> gen-method=<embedded|"
                    + "central-server|rest> epoch=<ms>' (" + e.getMessage() + "); fix or delete it only if you are sure no"
                    + " IDs were issued after the clock's current time", e);
        }
    }

    private static String required(Map<String, String> fields, String key) {
        String value = fields.get(key);
        if (value == null) {
            throw new IllegalArgumentException("no " + key);
        }
        return value;
    }

    /** Each file of the former naming as a mark of its type, gen-method and epoch, for both versions. */
    private List<RestartMark> readLegacy() {
        List<RestartMark> marks = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(legacyDirectory, "vesta-*-machine-" + legacyMachineId
                + "-" + kebab(legacyGenMethod) + "-epoch-*.mark")) {
            for (Path legacy : files) {
                Matcher name = LEGACY_NAME.matcher(legacy.getFileName().toString());
                if (!name.matches() || Long.parseLong(name.group(2)) != legacyMachineId) {
                    continue;
                }
                OptionalLong mark = new FileTimestampStore(legacy).load();
                if (mark.isEmpty()) {
                    continue;
                }
                IdType type = IdType.valueOf(enumName(name.group(1)));
                Instant epoch = Instant.ofEpochMilli(Long.parseLong(name.group(4)));
                for (long version = 0; version <= IdLayout.MAX_VERSION; version++) {
                    marks.add(new RestartMark(new IssuingLayout(version, type, legacyGenMethod, epoch), mark.getAsLong()));
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + legacyDirectory + " for restart marks of the former naming", e);
        }
        return marks;
    }

    private static String enumName(String kebab) {
        return kebab.toUpperCase(Locale.ROOT).replace('-', '_');
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
