package io.vesta.benchmarks.chaos;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file a {@link ChaosNode} process writes: big-endian longs, one file per process. An ID is a long
 * {@code >= 0} (version-0 IDs never set bit 63); anything negative is a record tag followed by a fixed number of
 * longs. Everything is 8 bytes wide, so a tail cut off by SIGKILL in the middle of a buffer is recognised as a
 * short last record and dropped: what is in the file before it was really issued.
 */
final class ChaosLog {

    /** Before the first ID under a newly acquired machine ID; see {@link Acquisition}. */
    static final long ACQUIRE = Long.MIN_VALUE + 1;
    /** Building a service failed: slot, wall time, {@link #REFUSED_RANGE_FULL} or another kind. */
    static final long REFUSAL = Long.MIN_VALUE + 2;
    /** The service stopped issuing: wall time, machine ID, {@link #LOSS_EXPIRED} or another kind. */
    static final long LOSS = Long.MIN_VALUE + 3;
    /** The process ended cleanly: wall time. */
    static final long END = Long.MIN_VALUE + 4;
    /** The service issues again after its lease had run out (a renewal succeeded): wall time, machine ID. */
    static final long RESUME = Long.MIN_VALUE + 5;

    static final int ACQUIRE_FIELDS = 10;
    static final int REFUSAL_FIELDS = 3;
    static final int LOSS_FIELDS = 3;
    static final int END_FIELDS = 1;
    static final int RESUME_FIELDS = 2;

    static final long NONE = Long.MIN_VALUE;

    static final long REFUSED_RANGE_FULL = 1;
    static final long REFUSED_UNAVAILABLE = 2;
    static final long REFUSED_OTHER = 3;

    static final long LOSS_EXPIRED = 1;
    static final long LOSS_REVOKED = 2;
    static final long LOSS_CLOCK = 3;
    static final long LOSS_OTHER = 4;

    private ChaosLog() {
    }

    static int fieldsOf(long tag) {
        if (tag == ACQUIRE) {
            return ACQUIRE_FIELDS;
        }
        if (tag == REFUSAL) {
            return REFUSAL_FIELDS;
        }
        if (tag == LOSS) {
            return LOSS_FIELDS;
        }
        if (tag == END) {
            return END_FIELDS;
        }
        if (tag == RESUME) {
            return RESUME_FIELDS;
        }
        return -1;
    }

    /**
     * One holder's start: who (slot, the slot whose owner name it used, process run, attempt in that process),
     * what (machine ID, the provider's notBefore or {@link #NONE}, the table's generation or -1) and when
     * (build started, acquire returned, record written; Unix ms of the one host clock all processes share).
     */
    record Acquisition(long slot, long ownerSlot, long run, long attempt, long machineId, long notBefore,
            long buildStartedAt, long acquiredAt, long generation, long recordedAt) {

        static Acquisition of(long[] f) {
            return new Acquisition(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]);
        }

        long[] fields() {
            return new long[] { slot, ownerSlot, run, attempt, machineId, notBefore, buildStartedAt, acquiredAt,
                    generation, recordedAt };
        }
    }

    /** Buffered, flushed by the caller's policy; not thread-safe (one issuing thread per node). */
    static final class Writer implements AutoCloseable {

        private final DataOutputStream out;
        private long pending;
        private long lastFlushNanos = System.nanoTime();

        private Writer(DataOutputStream out) {
            this.out = out;
        }

        static Writer open(Path file) throws IOException {
            // A 64 KiB buffer is a multiple of 8: a flush never splits a long, only (at worst) a record.
            return new Writer(new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE), 1 << 16)));
        }

        void id(long id) throws IOException {
            out.writeLong(id);
            pending++;
        }

        void ids(long[] ids) throws IOException {
            for (long id : ids) {
                out.writeLong(id);
            }
            pending += ids.length;
        }

        void record(long tag, long... fields) throws IOException {
            if (fieldsOf(tag) != fields.length) {
                throw new IllegalArgumentException("record " + tag + " takes " + fieldsOf(tag) + " fields");
            }
            out.writeLong(tag);
            for (long field : fields) {
                out.writeLong(field);
            }
            flush();
        }

        /** Flushes every {@code maxIds} IDs or {@code maxNanos}, whichever comes first. */
        void maybeFlush(long maxIds, long maxNanos) throws IOException {
            if (pending >= maxIds || (pending > 0 && System.nanoTime() - lastFlushNanos >= maxNanos)) {
                flush();
            }
        }

        void flush() throws IOException {
            out.flush();
            pending = 0;
            lastFlushNanos = System.nanoTime();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }

    /** What a reader is handed, in file order. */
    interface Visitor {
        void id(long id);

        void record(long tag, long[] fields);
    }

    /** Reads a whole file; a short last record or a trailing partial long is ignored. Returns IDs read. */
    static long read(Path file, Visitor visitor) throws IOException {
        long size = Files.size(file);
        long longs = size / 8;
        long ids = 0;
        try (InputStream raw = Files.newInputStream(file);
             DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
            long read = 0;
            while (read < longs) {
                long value = in.readLong();
                read++;
                if (value >= 0) {
                    visitor.id(value);
                    ids++;
                    continue;
                }
                int fields = fieldsOf(value);
                if (fields < 0) {
                    throw new IOException(file + ": unknown record tag " + value + " at long " + (read - 1));
                }
                if (read + fields > longs) {
                    break; // cut off by a SIGKILL
                }
                long[] f = new long[fields];
                for (int i = 0; i < fields; i++) {
                    f[i] = in.readLong();
                }
                read += fields;
                visitor.record(value, f);
            }
        }
        return ids;
    }
}
