package io.vesta.server;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code vesta.server.data-dir} as every reader of it sees it once the environment is prepared. */
class DataDirectoryEnvironmentPostProcessorTests {

    private static StandardEnvironment prepared(String dataDir) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addLast(new MapPropertySource("test", Map.of(
                DataDirectoryEnvironmentPostProcessor.PROPERTY, dataDir,
                "spring.datasource.url", "jdbc:h2:file:${vesta.server.data-dir}/vesta-segments",
                "vesta.time-store.directory", "${vesta.server.data-dir}/time")));
        new DataDirectoryEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }

    @Test
    void aRelativeDirectoryIsResolvedAgainstTheWorkingDirectoryForEveryPropertyBuiltOnIt() {
        String absolute = Path.of("data").toAbsolutePath().toString();

        StandardEnvironment environment = prepared("data");

        assertThat(environment.getProperty("vesta.server.data-dir")).isEqualTo(absolute);
        assertThat(environment.getProperty("spring.datasource.url")).isEqualTo("jdbc:h2:file:" + absolute + "/vesta-segments");
        assertThat(environment.getProperty("vesta.time-store.directory")).isEqualTo(absolute + "/time");
        assertThat(prepared("./data/").getProperty("vesta.server.data-dir")).isEqualTo(absolute);
    }

    @Test
    void aLeadingTildeIsTheUsersHome() {
        assertThat(prepared("~/vesta").getProperty("vesta.server.data-dir"))
                .isEqualTo(Path.of(System.getProperty("user.home"), "vesta").toAbsolutePath().toString());
    }

    @Test
    void anAbsoluteDirectoryIsLeftAsItIs() {
        String absolute = Path.of("/srv/vesta").toAbsolutePath().toString();

        StandardEnvironment environment = prepared(absolute);

        assertThat(environment.getProperty("vesta.server.data-dir")).isEqualTo(absolute);
        assertThat(environment.getPropertySources().contains(DataDirectoryEnvironmentPostProcessor.SOURCE)).isFalse();
    }
}
