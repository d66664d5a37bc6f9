package io.vesta.server;

import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.SpringBootExceptionReporter;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.diagnostics.LoggingFailureAnalysisReporter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.core.io.support.SpringFactoriesLoader;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The last word on a start-up failure that no failure analyzer knows: Boot's failure report with the failure's own
 * messages, rather than "Application run failed" and a stack trace, which an operator of a deployed server cannot act
 * on. A failure some analyzer knows is left to Boot's own report, whichever reporter runs first: Boot gives no way to
 * order a reporter after its failure analyzers, so this one asks them itself. The stack trace stays available at
 * DEBUG.
 */
class StartupFailureReporter implements SpringBootExceptionReporter {

    static final String ACTION = "Correct what the description names. The stack trace is logged at DEBUG: start with"
            + " --debug (or --logging.level.org.springframework.boot.diagnostics=debug) to see it, for a failure after"
            + " logging has started (not, for example, for a configuration file that cannot be read).";

    private final ConfigurableApplicationContext context;

    /** Boot passes the context being started; null when start-up failed before there was one. */
    StartupFailureReporter(ConfigurableApplicationContext context) {
        this.context = context;
    }

    @Override
    public boolean reportException(Throwable failure) {
        if (anAnalyzerKnows(failure)) {
            return false;
        }
        new LoggingFailureAnalysisReporter().report(new FailureAnalysis(describe(failure), ACTION, failure));
        return true;
    }

    private boolean anAnalyzerKnows(Throwable failure) {
        SpringFactoriesLoader.ArgumentResolver arguments = context == null ? SpringFactoriesLoader.ArgumentResolver.none()
                : SpringFactoriesLoader.ArgumentResolver.of(BeanFactory.class, context.getBeanFactory())
                        .and(Environment.class, context.getEnvironment());
        ClassLoader classLoader = context != null ? context.getClassLoader() : getClass().getClassLoader();
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(classLoader).load(
                FailureAnalyzer.class, arguments,
                SpringFactoriesLoader.FailureHandler.logging(LogFactory.getLog(StartupFailureReporter.class)));
        for (FailureAnalyzer analyzer : analyzers) {
            try {
                if (analyzer.analyze(failure) != null) {
                    return true;
                }
            } catch (Throwable ignored) {
                // Boot's own report skips an analyzer that fails too
            }
        }
        return false;
    }

    /**
     * The failure's messages from its root cause up, each once: Spring's wrapping exceptions repeat the message of
     * their cause inside their own, so a message that contains one already listed adds nothing.
     */
    static String describe(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
            chain.add(0, t);
        }
        List<String> kept = new ArrayList<>();
        StringBuilder description = new StringBuilder("vesta-server cannot start.\n");
        for (Throwable t : chain) {
            String message = t.getMessage();
            if (message == null || message.isBlank() || kept.stream().anyMatch(message::contains)) {
                continue;
            }
            kept.add(message);
            description.append(kept.size() == 1 ? "\n" : "\nwhile:\n").append("    ").append(t.getClass().getName())
                    .append(": ").append(message).append('\n');
        }
        if (kept.isEmpty()) {
            description.append("\n    ").append(failure.getClass().getName()).append('\n');
        }
        return description.toString();
    }
}
