package io.vesta.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md names every property of the configuration metadata that IDEs complete: a property added
 * without its line in the reference page fails here.
 */
class ConfigurationDocsTests {

    /** The page, from this module's directory (where Maven runs the tests). */
    private static final Path PAGE = Path.of("..", "docs", "configuration.md");

    @Test
    void everyPropertyOfTheMetadataIsOnTheConfigurationPage() throws Exception {
        String page = Files.readString(PAGE);
        JsonNode metadata;
        try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
            metadata = JsonMapper.builder().build().readTree(in);
        }
        List<String> names = new ArrayList<>();
        for (JsonNode property : metadata.get("properties")) {
            if (property.has("deprecation")) {
                continue;
            }
            names.add(property.get("name").asString());
        }
        assertThat(names).as("properties in the metadata").hasSizeGreaterThan(50);
        List<String> missing = names.stream().filter(name -> !documented(page, name)).sorted().toList();
        assertThat(missing).as("properties that " + PAGE + " lacks").isEmpty();
    }

    /**
     * Written as {@code `name`}, as {@code `name.*`}, {@code `name.<key>...`} or {@code `name[...]`} for maps and
     * lists, or as the second half
     * of a pair {@code `prefix.min` / `.max`}.
     */
    static boolean documented(String page, String name) {
        if (page.contains("`" + name + "`") || page.contains("`" + name + ".*`") || page.contains("`" + name + "[")
                || page.contains("`" + name + ".<")) {
            return true;
        }
        int dot = name.lastIndexOf('.');
        return Pattern.compile(Pattern.quote("`" + name.substring(0, dot + 1)) + "[a-z-]+` / `"
                + Pattern.quote(name.substring(dot)) + "`").matcher(page).find();
    }
}
