package io.vesta.server;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Makes {@code vesta.server.data-dir} absolute before anything reads it, resolved against the working directory (a
 * leading {@code ~} is the user's home), so that the H2 URL, the time-store directory and anything else built from it
 * see one absolute directory. H2 refuses a database path that is only implicitly relative ({@code data/vesta-segments});
 * {@code ./data} and {@code data} now mean the same. Runs after the configuration files are loaded, and puts the
 * absolute value ahead of every other property source.
 */
class DataDirectoryEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    static final String PROPERTY = "vesta.server.data-dir";
    static final String SOURCE = "vestaServerDataDirectory";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String value = environment.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            return;
        }
        String absolute = absolute(value.strip());
        if (absolute != null && !absolute.equals(value)) {
            environment.getPropertySources().addFirst(new MapPropertySource(SOURCE, Map.of(PROPERTY, absolute)));
        }
    }

    /** The directory as an absolute, normalized path, or null when it is no path at all (left for what reads it to refuse). */
    static String absolute(String directory) {
        try {
            Path path = directory.equals("~") || directory.startsWith("~/")
                    ? Path.of(System.getProperty("user.home")).resolve(directory.substring(1).replaceFirst("^/", ""))
                    : Path.of(directory);
            return path.toAbsolutePath().normalize().toString();
        } catch (InvalidPathException e) {
            return null;
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
