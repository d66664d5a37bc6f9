package io.vesta.autoconfigure;

import io.vesta.time.TimestampStoreLockedException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a high-water mark that another generator holds: most often a second process started on the same directory
 * (two servers given one {@code vesta.server.data-dir}), or two processes given one machine ID on one host.
 */
class TimestampStoreLockedFailureAnalyzer extends AbstractFailureAnalyzer<TimestampStoreLockedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, TimestampStoreLockedException cause) {
        return new FailureAnalysis("Vesta cannot start: its timestamp store " + cause.file() + " is in use by another"
                + " generator.\n\nThe lock " + cause.lockFile() + " is held by another process (or another generator in"
                + " this one). Two generators on one mark are two generators under one machine ID, which would issue the"
                + " same IDs, so this one does not start.\n",
                "Stop the other process that uses " + cause.file().getParent() + ", or give this one a machine ID of its"
                        + " own ('vesta.machine-id.*') and a timestamp-store directory of its own"
                        + " ('vesta.time-store.directory'; for vesta-server, its own 'vesta.server.data-dir').",
                cause);
    }
}
