package io.vesta.concurrency;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** The engine's logger in a scenario: keeps what it was told, to print beside a failure, and writes nothing. */
final class RecordingLogger implements System.Logger {

    private final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    public String getName() {
        return "scenario";
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
        lines.add(level + " " + message + (thrown == null ? "" : " (" + thrown + ")"));
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        lines.add(level + " " + (params == null || params.length == 0 ? format : MessageFormat.format(format, params)));
    }

    List<String> lines() {
        return List.copyOf(lines);
    }
}
