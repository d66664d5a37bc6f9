package io.vesta.time;

import java.nio.file.Path;

/**
 * A {@link FileTimestampStore} is open in another generator: its lock file is held by another process, or by another
 * generator in this one. Two generators on one mark would be two generators under one machine ID, which issue the same
 * IDs, so the second never starts.
 */
public class TimestampStoreLockedException extends IllegalStateException {

    private final Path file;
    private final Path lockFile;

    public TimestampStoreLockedException(Path file, Path lockFile) {
        super("The timestamp store " + file + " is in use by another generator (its lock " + lockFile
                + " is held, by another process or another generator in this one)");
        this.file = file;
        this.lockFile = lockFile;
    }

    /** The mark file. */
    public Path file() {
        return file;
    }

    /** The lock file beside it, which the other generator holds. */
    public Path lockFile() {
        return lockFile;
    }
}
