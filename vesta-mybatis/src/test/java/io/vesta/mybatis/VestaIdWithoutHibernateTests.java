package io.vesta.mybatis;

import io.vesta.VestaId;
import org.apache.ibatis.annotations.Insert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @VestaId} in a project that has MyBatis and no Hibernate: javac with every lint warning as an error
 * compiles it (it used to warn that {@code org.hibernate.annotations.IdGeneratorType} was missing), on a class path
 * of exactly vesta-core and MyBatis.
 */
class VestaIdWithoutHibernateTests {

    private static final Map<String, String> MYBATIS_PROJECT = Map.of(
            "example/Row.java", """
                    package example;

                    import io.vesta.VestaId;

                    public class Row {
                        @VestaId
                        private Long id;

                        public Long getId() {
                            return id;
                        }
                    }
                    """,
            "example/RowMapper.java", """
                    package example;

                    import org.apache.ibatis.annotations.Insert;

                    public interface RowMapper {
                        @Insert("insert into rows (id) values (#{id})")
                        int insert(Row row);
                    }
                    """,
            "example/package-info.java", """
                    @VestaId
                    package example;

                    import io.vesta.VestaId;
                    """);

    @Test
    void hibernateIsNotOnThisModulesClassPath() {
        assertThatExceptionOfType(ClassNotFoundException.class)
                .isThrownBy(() -> Class.forName("org.hibernate.annotations.IdGeneratorType"));
        assertThat(VestaId.class.getAnnotations()).extracting(annotation -> annotation.annotationType().getName())
                .allMatch(name -> name.startsWith("java.lang.annotation."));
    }

    @Test
    void aMyBatisProjectUsingVestaIdCompilesWithEveryLintWarningAsAnError(@TempDir Path project) throws Exception {
        assertThat(compile(project, MYBATIS_PROJECT)).isEmpty();
    }

    @Test
    void theseCompilerOptionsDoTurnAWarningIntoAnError(@TempDir Path project) throws Exception {
        List<Diagnostic<? extends JavaFileObject>> diagnostics = compile(project, Map.of("example/Raw.java", """
                package example;

                public class Raw {
                    public java.util.List list;
                }
                """));
        assertThat(diagnostics).extracting(Diagnostic::getKind).contains(Diagnostic.Kind.WARNING, Diagnostic.Kind.ERROR);
    }

    /** Compiles {@code sources} with {@code -Xlint:all -Werror} against vesta-core and MyBatis only. */
    private static List<Diagnostic<? extends JavaFileObject>> compile(Path project, Map<String, String> sources)
            throws IOException, URISyntaxException {
        List<File> files = new ArrayList<>();
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = project.resolve("src").resolve(source.getKey());
            Files.createDirectories(file.getParent());
            files.add(Files.writeString(file, source.getValue()).toFile());
        }
        Path classes = Files.createDirectories(project.resolve("classes"));
        String classPath = location(VestaId.class) + File.pathSeparator + location(Insert.class);
        assertThat(classPath).doesNotContainIgnoringCase("hibernate");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, null, null)) {
            javac.getTask(null, fileManager, diagnostics,
                    List.of("-Xlint:all", "-Werror", "-classpath", classPath, "-d", classes.toString()), null,
                    fileManager.getJavaFileObjectsFromFiles(files)).call();
        }
        return diagnostics.getDiagnostics();
    }

    private static String location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
