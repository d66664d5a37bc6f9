package io.vesta.sample.embedded;

import io.vesta.autoconfigure.VestaAutoConfiguration;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an application that adds the starter gets in Vesta's auto-configuration jar (under {@code mvn verify} the
 * built jar, under {@code mvn test} its classes): the metadata the annotation processors generate, which IDEs
 * complete {@code vesta.*} from and Boot reads conditions from before loading a class. A build that does not run
 * the processors still passes everything else.
 */
class StarterMetadataTests {

    @Test
    void theAutoConfigurationJarCarriesTheConfigurationMetadataOfEveryVestaProperty() throws IOException {
        assertThat(read("META-INF/spring-configuration-metadata.json"))
                .containsPattern("\"name\"\\s*:\\s*\"vesta\\.machine-id\\.value\"")
                .containsPattern("\"name\"\\s*:\\s*\"vesta\\.time-store\\.enabled\"");
    }

    @Test
    void theAutoConfigurationJarCarriesTheAutoConfigurationMetadata() throws IOException {
        assertThat(read("META-INF/spring-autoconfigure-metadata.properties"))
                .contains("io.vesta.autoconfigure.VestaAutoConfiguration.AutoConfigureAfter=");
    }

    /** An entry of the jar (or classes directory) that holds Vesta's auto-configuration, never another jar's. */
    private static String read(String entry) throws IOException {
        Path location;
        try {
            location = Path.of(VestaAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        if (Files.isDirectory(location)) {
            Path file = location.resolve(entry);
            assertThat(file).as("%s in %s", entry, location).exists();
            return Files.readString(file);
        }
        try (JarFile jar = new JarFile(location.toFile())) {
            assertThat(jar.getJarEntry(entry)).as("%s in %s", entry, location).isNotNull();
            return new String(jar.getInputStream(jar.getJarEntry(entry)).readAllBytes());
        }
    }
}
