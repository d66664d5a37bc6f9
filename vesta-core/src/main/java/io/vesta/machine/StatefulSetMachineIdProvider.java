package io.vesta.machine;

import io.vesta.InvalidSettingException;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pod of a Kubernetes StatefulSet takes its machine ID from its ordinal: pod {@code ids-3} is machine ID range start
 * + 3 (with blocks of {@code k}, the range's block 3). The ordinal is the {@code -N} suffix of the host name, which is
 * the pod's name in a StatefulSet, or the value of an environment variable the pod spec sets (the downward API's
 * {@code metadata.labels['apps.kubernetes.io/pod-index']}, Kubernetes 1.28 and later).
 *
 * <p>Why two pods never share an ID: a StatefulSet runs at most one pod per ordinal, and does not start a replacement
 * for an ordinal until the old pod is gone (the reason StatefulSets exist). The ID holds for good, as with the
 * property strategy; the restart marks of the time store keep a restarted pod after its previous run's IDs. A
 * Deployment's pods have random suffixes, which this provider refuses rather than misread.
 */
public final class StatefulSetMachineIdProvider implements MachineIdProvider {

    private static final Pattern ORDINAL_SUFFIX = Pattern.compile("^(.+)-(\\d{1,7})$");
    private static final Pattern ORDINAL = Pattern.compile("\\d{1,7}");

    private final String ordinalVariable;
    private final String settingPrefix;
    private final Supplier<String> hostName;
    private final Function<String, String> environment;
    private volatile String description = "kubernetes-statefulset";

    /**
     * @param ordinalVariable the environment variable that holds the ordinal, or null to read the host name's suffix
     * @param settingPrefix   the prefix of the settings in errors, such as {@code "vesta.machine-id."}
     * @param hostName        this pod's host name ({@link #localHostName()})
     * @param environment     reads an environment variable ({@code System::getenv})
     */
    public StatefulSetMachineIdProvider(String ordinalVariable, String settingPrefix, Supplier<String> hostName,
            Function<String, String> environment) {
        this.ordinalVariable = ordinalVariable == null || ordinalVariable.isBlank() ? null : ordinalVariable.trim();
        this.settingPrefix = settingPrefix == null ? "" : settingPrefix;
        this.hostName = hostName;
        this.environment = environment;
    }

    /** The ordinal from the host name's suffix, or from {@code ordinalVariable} when not null. */
    public StatefulSetMachineIdProvider(String ordinalVariable) {
        this(ordinalVariable, "", StatefulSetMachineIdProvider::localHostName, System::getenv);
    }

    /**
     * @throws MachineIdUnavailableException if the host name has no ordinal, or the variable is unset or not a number
     * @throws InvalidSettingException if the ordinal is beyond the range's blocks: more pods than the range holds
     */
    @Override
    public long acquire(MachineIdRange range, int blockSize) {
        MachineIdRange.requireBlockSize("blockSize", blockSize);
        long ordinal;
        String source;
        if (ordinalVariable != null) {
            String value = environment.apply(ordinalVariable);
            if (value == null || !ORDINAL.matcher(value.trim()).matches()) {
                throw new MachineIdUnavailableException("The environment variable " + ordinalVariable + " (" + settingPrefix
                        + "kubernetes.ordinal-variable) " + (value == null ? "is not set" : "is '" + value + "', not an ordinal")
                        + ": set it to the pod's ordinal, for example from the downward API's"
                        + " metadata.labels['apps.kubernetes.io/pod-index']");
            }
            ordinal = Long.parseLong(value.trim());
            source = ordinalVariable + "=" + ordinal;
        } else {
            String name = hostName.get();
            Matcher matcher = ORDINAL_SUFFIX.matcher(name == null ? "" : name.trim());
            if (!matcher.matches()) {
                throw new MachineIdUnavailableException("The host name '" + name + "' has no StatefulSet ordinal (a"
                        + " '-N' suffix, as in 'ids-3'): run the pods in a StatefulSet, or name an environment variable"
                        + " that holds the ordinal in " + settingPrefix + "kubernetes.ordinal-variable");
            }
            ordinal = Long.parseLong(matcher.group(2));
            source = "host name " + name;
        }
        long blocks = range.blocks(blockSize);
        if (ordinal >= blocks) {
            throw new InvalidSettingException(settingPrefix + "strategy", "kubernetes-statefulset", "at most " + blocks
                    + " replicas, ordinals 0 to " + (blocks - 1) + " (range " + range + ", " + range.size() + " IDs"
                    + (blockSize == 1 ? "" : ", blocks of " + blockSize) + "), or a wider range",
                    "gives ordinal " + ordinal + " (" + source + "), beyond the range");
        }
        long machineId = range.blockStart(ordinal, blockSize);
        description = "kubernetes-statefulset (ordinal " + ordinal + " from " + source + ")";
        return machineId;
    }

    @Override
    public String describe() {
        return description;
    }

    /** This host's name as the JVM reads it: a StatefulSet pod's name. */
    public static String localHostName() {
        String fromEnvironment = System.getenv("HOSTNAME");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
