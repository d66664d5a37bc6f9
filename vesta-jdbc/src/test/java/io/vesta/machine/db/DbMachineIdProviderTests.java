package io.vesta.machine.db;

import io.vesta.InvalidSettingException;
import io.vesta.test.FaultyDataSource;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

/** Settings and schema scripts of {@link DbMachineIdProvider}; the behaviour against databases is in the contract. */
class DbMachineIdProviderTests {

    private final FaultyDataSource dataSource = FaultyDataSource.pooled("jdbc:h2:mem:unused", 1);

    @Test
    void settingsOutOfRangeNameTheSettingTheValueAndTheRange() {
        assertRefused(() -> DbMachineIdProvider.builder(dataSource).settingPrefix("vesta.machine-id.db.")
                        .lease(Duration.ofMillis(500)).build(),
                "vesta.machine-id.db.lease", "500ms", "a duration in [1000ms, 3600000ms]");
        assertRefused(() -> DbMachineIdProvider.builder(dataSource).lease(Duration.ofSeconds(30))
                        .heartbeat(Duration.ofSeconds(15)).build(),
                "heartbeat", "15000ms", "a duration in [10ms, 10000ms] (at most a third of lease 30000ms)");
        assertRefused(() -> DbMachineIdProvider.builder(dataSource).settingPrefix("vesta.machine-id.db.")
                        .lease(Duration.ofSeconds(10)).heartbeat(Duration.ofSeconds(5)).build(),
                "vesta.machine-id.db.heartbeat", "5000ms",
                "a duration in [10ms, 3333ms] (at most a third of vesta.machine-id.db.lease 10000ms)");
        assertRefused(() -> DbMachineIdProvider.builder(dataSource).table("ids; DROP TABLE users").build(),
                "table", "ids; DROP TABLE users", "an unquoted SQL identifier (letters, digits and _, not starting"
                        + " with a digit, at most 63 characters), optionally schema.table");
        assertRefused(() -> DbMachineIdProvider.builder(dataSource).owner(" ").build(),
                "owner", " ", "1 to 255 characters, not blank");
        assertRefused(() -> DbMachineIdProvider.builder(dataSource).settingPrefix("vesta.machine-id.db.")
                        .owner("x".repeat(256)).build(),
                "vesta.machine-id.db.owner", "x".repeat(256), "1 to 255 characters, not blank");
        assertRefused(() -> DbMachineIdProvider.builder(null).build(), "data-source", null, "a javax.sql.DataSource");
    }

    /** The builder refuses with the setting's full name, the value given and what is allowed, as fields. */
    private static void assertRefused(ThrowingCallable build, String setting, Object value, String allowed) {
        assertThatThrownBy(build).asInstanceOf(type(InvalidSettingException.class))
                .extracting(InvalidSettingException::setting, InvalidSettingException::value, InvalidSettingException::allowed)
                .containsExactly(setting, value, allowed);
    }

    @Test
    void defaultsAreAThirtySecondLeaseAFiveSecondHeartbeatAndHostPlusProcessAsOwner() {
        DbMachineIdProvider provider = DbMachineIdProvider.builder(dataSource).table("ids.vesta_machine").build();

        assertThat(provider.leaseDuration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(provider.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(provider.queryTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(provider.closeTimeout()).isEqualTo(Duration.ofSeconds(31));
        assertThat(provider.owner()).endsWith(":" + ProcessHandle.current().pid()).isEqualTo(DbMachineIdProvider.defaultOwner());
        assertThat(provider.table()).isEqualTo("ids.vesta_machine");
        assertThat(provider.lease().isHeldAt(0)).as("nothing is held before acquire").isFalse();
    }

    @Test
    void eachDatabaseGetsItsOwnScriptWithTheConfiguredTableName() {
        assertThat(DbMachineIdProvider.schemaScript("PostgreSQL", "ids"))
                .startsWith("CREATE TABLE IF NOT EXISTS ids (").contains("generation   BIGINT       NOT NULL")
                .doesNotContain("vesta_machine", "--");
        assertThat(DbMachineIdProvider.schemaScript("MariaDB", "vesta_machine"))
                .contains("COLLATE utf8mb4_bin").endsWith("ENGINE = InnoDB;");
        assertThat(DbMachineIdProvider.schemaScript("MySQL", "vesta_machine")).contains("ENGINE = InnoDB");
        assertThat(DbMachineIdProvider.schemaScript("H2", "app.vesta_machine")).startsWith("CREATE TABLE IF NOT EXISTS app.vesta_machine (");
        assertThatIllegalArgumentException().isThrownBy(() -> DbMachineIdProvider.schemaScript("Oracle", "vesta_machine"))
                .withMessageStartingWith("No schema script for database 'Oracle'; scripts ship for PostgreSQL, MySQL/MariaDB and H2");
    }
}
