package io.vesta.autoconfigure.jdbc;

import io.vesta.IdService;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.segment.VestaSegmentAutoConfiguration;
import io.vesta.machine.db.DbMachineIdProvider;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentSchema;
import io.vesta.test.TestDatabase;
import io.vesta.test.TestSchema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Vesta's tables created by the application's own database initialisation ({@code spring.sql.init}, Flyway,
 * Liquibase) from the shipped DDL, and by Vesta itself by {@code initialize-schema} mode, on H2, PostgreSQL and
 * MariaDB. The lease and the segment service start after the application's initialisation, so its tables are there
 * when they read them.
 */
class DatabaseInitializationTests {

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String leases = "vesta_machine_init_" + suffix;
    private final String segments = "vesta_segment_init_" + suffix;
    private final String history = "flyway_init_" + suffix;
    private final List<String> urls = new ArrayList<>();
    private final List<TestSchema> schemas = new ArrayList<>();

    @TempDir
    Path dir;

    private String url(TestDatabase database) {
        String url = database.url();
        urls.add(url);
        return url;
    }

    @AfterEach
    void dropTables() {
        schemas.forEach(TestSchema::close);
        for (String url : urls) {
            JdbcTemplate jdbc = new JdbcTemplate(direct(url));
            for (String table : List.of(leases, segments, history)) {
                jdbc.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /** Both tables with the configured names, from the scripts in the jar: what a migration copies. */
    private String shippedDdl(TestDatabase database) {
        StringBuilder ddl = new StringBuilder(DbMachineIdProvider.schemaScript(database.product(), leases)).append('\n');
        for (String statement : SegmentSchema.statements(database.product(), segments)) {
            ddl.append(statement).append(";\n");
        }
        return ddl.toString();
    }

    /** An application on the database that leases its machine ID from the table and serves segments, creating neither. */
    private ApplicationContextRunner application(String url) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                        VestaSegmentAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url, "vesta.time-store.enabled=false",
                        "vesta.machine-id.strategy=db", "vesta.machine-id.db.table=" + leases,
                        "vesta.machine-id.db.owner=init-" + suffix, "vesta.machine-id.db.initialize-schema=never",
                        "vesta.segment.enabled=true", "vesta.segment.table=" + segments,
                        "vesta.segment.initialize-schema=never", "vesta.segment.auto-create=true");
    }

    private void assertLeasedAndServing(org.springframework.context.ApplicationContext context) {
        JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
        long machine = context.getBean(IdService.class).expId(context.getBean(IdService.class).genId()).machine();
        assertThat(jdbc.queryForList("SELECT machine_id FROM " + leases + " WHERE owner = ?", Long.class, "init-" + suffix))
                .as("the lease row of this node").containsExactly(machine);
        assertThat(context.getBean(SegmentIdService.class).nextId("orders")).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void tablesCreatedBySpringSqlInitAreThereBeforeTheLeaseAndTheSegments(TestDatabase database) throws IOException {
        Path schema = Files.writeString(dir.resolve("schema.sql"), shippedDdl(database));
        application(url(database))
                .withConfiguration(AutoConfigurations.of(DataSourceInitializationAutoConfiguration.class))
                .withPropertyValues("spring.sql.init.mode=always", "spring.sql.init.schema-locations=" + schema.toUri())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertLeasedAndServing(context);
                });
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void tablesCreatedByFlywayAreThereBeforeTheLeaseAndTheSegments(TestDatabase database) throws IOException {
        Path migrations = Files.createDirectories(dir.resolve("migration"));
        Files.writeString(migrations.resolve("V1__vesta.sql"), shippedDdl(database));
        application(url(database))
                .withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
                // The servers' test databases hold other tests' tables: Flyway starts from an empty baseline there.
                .withPropertyValues("spring.flyway.locations=filesystem:" + migrations, "spring.flyway.table=" + history,
                        "spring.flyway.baseline-on-migrate=true", "spring.flyway.baseline-version=0")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertLeasedAndServing(context);
                });
    }

    /**
     * The README's changelog, which reads the scripts from the vesta-jdbc jar: they create the tables under their
     * default names, so each run has a database (MariaDB) or schema (PostgreSQL) of its own.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void tablesCreatedByTheReadmesLiquibaseChangelogAreThereBeforeTheLeaseAndTheSegments(TestDatabase database) throws IOException {
        String url = isolated(database);
        Path changelog = Files.writeString(dir.resolve("changelog.yaml"), """
                databaseChangeLog:
                  - changeSet:
                      id: vesta-tables
                      author: app
                      changes:
                        - sqlFile: { path: io/vesta/machine/db/schema-postgresql.sql, dbms: postgresql }
                        - sqlFile: { path: io/vesta/segment/schema-postgresql.sql, dbms: postgresql }
                        - sqlFile: { path: io/vesta/machine/db/schema-mysql.sql, dbms: "mysql,mariadb" }
                        - sqlFile: { path: io/vesta/segment/schema-mysql.sql, dbms: "mysql,mariadb" }
                        - sqlFile: { path: io/vesta/machine/db/schema-h2.sql, dbms: h2 }
                        - sqlFile: { path: io/vesta/segment/schema-h2.sql, dbms: h2 }
                """);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LiquibaseAutoConfiguration.class,
                        VestaAutoConfiguration.class, VestaSegmentAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url, "spring.liquibase.change-log=" + changelog.toUri(),
                        "vesta.time-store.enabled=false", "vesta.machine-id.strategy=db",
                        "vesta.machine-id.db.owner=init-" + suffix, "vesta.machine-id.db.initialize-schema=never",
                        "vesta.segment.enabled=true", "vesta.segment.initialize-schema=never", "vesta.segment.auto-create=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(javax.sql.DataSource.class));
                    IdService ids = context.getBean(IdService.class);
                    assertThat(jdbc.queryForList("SELECT machine_id FROM vesta_machine WHERE owner = ?", Long.class, "init-" + suffix))
                            .containsExactly(ids.expId(ids.genId()).machine());
                    assertThat(context.getBean(SegmentIdService.class).nextId("orders")).isEqualTo(1);
                });
    }

    /** A URL on an empty database or schema of this test's own, dropped afterwards. */
    private String isolated(TestDatabase database) {
        TestSchema schema = database.createSchema("vesta_init");
        schemas.add(schema);
        return schema.url();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void byDefaultVestaCreatesItsTablesOnAnEmbeddedDatabaseOnly(TestDatabase database) {
        String url = url(database);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                        VestaSegmentAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url, "vesta.time-store.enabled=false", "vesta.machine-id.value=3",
                        "vesta.segment.enabled=true", "vesta.segment.table=" + segments)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(exists(url, segments)).isEqualTo(database == TestDatabase.H2);
                });
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void alwaysCreatesBothTablesOnEveryDatabase(TestDatabase database) {
        application(url(database))
                .withPropertyValues("vesta.machine-id.db.initialize-schema=always", "vesta.segment.initialize-schema=always")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertLeasedAndServing(context);
                });
    }

    @Test
    void neverCreatesNoTableEvenOnAnEmbeddedDatabase() {
        String url = url(TestDatabase.H2);
        application(url).withPropertyValues("vesta.machine-id.strategy=property", "vesta.machine-id.value=3")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(exists(url, segments)).isFalse();
                });
    }

    /** A connection of the test's own, as the user Boot's embedded H2 was created with. */
    private static DriverManagerDataSource direct(String url) {
        return url.startsWith("jdbc:h2:") ? new DriverManagerDataSource(url, "sa", "") : new DriverManagerDataSource(url);
    }

    private static boolean exists(String url, String table) {
        try {
            new JdbcTemplate(direct(url)).queryForObject("SELECT COUNT(*) FROM " + table, Long.class);
            return true;
        } catch (DataAccessException missing) {
            return false;
        }
    }
}
