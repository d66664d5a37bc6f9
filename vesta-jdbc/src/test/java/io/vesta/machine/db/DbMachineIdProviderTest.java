package io.vesta.machine.db;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Settings and schema scripts of {@link DbMachineIdProvider}; the behaviour against databases is in the contract. */
class DbMachineIdProviderTest {

    private final TestDataSource dataSource = TestDataSource.pooled("jdbc:h2:mem:unused", 1);

    @Test
    void settingsOutOfRangeNameTheSettingTheValueAndTheRange() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> DbMachineIdProvider.builder(dataSource).settingPrefix("vesta.machine-id.db.")
                        .lease(Duration.ofMillis(500)).build())
                .withMessage("vesta.machine-id.db.lease must be in [1000ms, 3600000ms], was 500ms");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> DbMachineIdProvider.builder(dataSource).lease(Duration.ofSeconds(30))
                        .heartbeat(Duration.ofSeconds(15)).build())
                .withMessage("heartbeat must be in [10ms, 10000ms] (at most a third of lease 30000ms), was 15000ms");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> DbMachineIdProvider.builder(dataSource).table("ids; DROP TABLE users").build())
                .withMessage("table must be an SQL identifier (letters, digits and underscores, not starting with a digit,"
                        + " at most 63 characters, optionally schema.table), was 'ids; DROP TABLE users'");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> DbMachineIdProvider.builder(dataSource).owner(" ").build())
                .withMessage("owner must be 1 to 255 characters and not blank, was ' ' (1 characters)");
        assertThatIllegalArgumentException().isThrownBy(() -> DbMachineIdProvider.builder(null).build())
                .withMessage("dataSource must be set");
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
