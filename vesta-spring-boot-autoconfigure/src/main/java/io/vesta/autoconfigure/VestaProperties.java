package io.vesta.autoconfigure;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.IdType;
import io.vesta.layout.IdCodec;
import io.vesta.sequence.SequencerStrategy;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

import java.nio.file.Path;
import java.time.Duration;

/** Configuration of Vesta ID generation: {@code vesta.*}. */
@ConfigurationProperties("vesta")
public class VestaProperties {

    /** ID layout: max-peak orders by second (2^20 IDs/s per machine ID), min-granularity by millisecond (1024 IDs/ms). Changing it needs a restart. */
    private IdType type = EmbeddedIdService.DEFAULT_TYPE;

    /** Where IDs are made: embedded generates them in this process, client takes them from central servers (vesta.client.*). */
    private Mode mode = Mode.EMBEDDED;

    /** How IDs issued by this node are marked: embedded, central-server or rest. Also selects the default machine-ID range. */
    private GenMethod genMethod = EmbeddedIdService.DEFAULT_GEN_METHOD;

    /** Version bit of issued IDs: 0 normally, 1 for the extension/migration window (such IDs are negative longs). */
    private int version = (int) EmbeddedIdService.DEFAULT_VERSION;

    /** How the node's sequence state is guarded: lock (ReentrantLock), synchronized, or cas (lock-free). */
    private SequencerStrategy sequencer = EmbeddedIdService.DEFAULT_SEQUENCER;

    /** The instant that time fields count from, ISO-8601 with an offset. Set a later epoch only for new deployments: IDs made with another epoch decode to other times. */
    private String epoch = IdCodec.DEFAULT_EPOCH_TEXT;

    @NestedConfigurationProperty
    private final MachineIdProperties machineId = new MachineIdProperties();

    private final Clock clock = new Clock();

    private final TimeStore timeStore = new TimeStore();

    public IdType getType() {
        return type;
    }

    public void setType(IdType type) {
        this.type = type;
    }

    public Mode getMode() {
        return mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    public GenMethod getGenMethod() {
        return genMethod;
    }

    public void setGenMethod(GenMethod genMethod) {
        this.genMethod = genMethod;
    }

    public int getVersion() {
        return version;
    }

    public void setVersion(int version) {
        this.version = version;
    }

    public SequencerStrategy getSequencer() {
        return sequencer;
    }

    public void setSequencer(SequencerStrategy sequencer) {
        this.sequencer = sequencer;
    }

    public String getEpoch() {
        return epoch;
    }

    public void setEpoch(String epoch) {
        this.epoch = epoch;
    }

    public MachineIdProperties getMachineId() {
        return machineId;
    }

    public Clock getClock() {
        return clock;
    }

    public TimeStore getTimeStore() {
        return timeStore;
    }

    /** Where IDs are made. */
    public enum Mode {
        /** Generate IDs in this process. */
        EMBEDDED,
        /** Take IDs from central servers (vesta.client.*). */
        CLIENT
    }

    /** {@code vesta.clock.*}. */
    public static class Clock {

        /** Largest step back of the clock that is waited out; a larger one refuses IDs until the clock catches up. Defaults to 5ms for min-granularity and 1s for max-peak; at most 1m. */
        private Duration maxBackwardWait;

        public Duration getMaxBackwardWait() {
            return maxBackwardWait;
        }

        public void setMaxBackwardWait(Duration maxBackwardWait) {
            this.maxBackwardWait = maxBackwardWait;
        }
    }

    /** {@code vesta.time-store.*}. */
    public static class TimeStore {

        /** Whether a high-water mark is kept ahead of issued time, so that a restart with the clock set back cannot repeat IDs. On by default; turn it off only where the clock cannot be set back, or the mark cannot be kept. */
        private boolean enabled = true;

        /** Directory of the high-water marks, one file per machine ID and gen-method holding a mark per version and type with its epoch, locked while the generator runs; a start whose epoch would repeat issued IDs is refused. Containers should mount it on a volume that outlives the container. */
        private Path directory = Path.of(System.getProperty("java.io.tmpdir"), "vesta");

        /** One file for the high-water mark instead of a file in the directory; in server mode both generators share it, keeping the higher mark. */
        private Path file;

        /** How far ahead of issued time the high-water mark is written each time; a restart right after a crash waits up to this long. */
        private Duration persistStep = EmbeddedIdService.DEFAULT_PERSIST_STEP;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Path getDirectory() {
            return directory;
        }

        public void setDirectory(Path directory) {
            this.directory = directory;
        }

        public Path getFile() {
            return file;
        }

        public void setFile(Path file) {
            this.file = file;
        }

        public Duration getPersistStep() {
            return persistStep;
        }

        public void setPersistStep(Duration persistStep) {
            this.persistStep = persistStep;
        }
    }
}
