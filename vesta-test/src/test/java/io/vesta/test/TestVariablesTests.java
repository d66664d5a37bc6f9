package io.vesta.test;

import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestVariablesTests {

    private static final String VARIABLE = "VESTA_TEST_SOMETHING_URL";

    @Test
    void aSetVariableIsItsValue() {
        assertThat(TestVariables.require(Map.of(VARIABLE, "jdbc:x://h/db"), VARIABLE, "jdbc:x://127.0.0.1/test"))
                .isEqualTo("jdbc:x://h/db");
    }

    @Test
    void anUnsetOrBlankVariableSkipsTheTestNamingTheVariableAndAnExample() {
        for (Map<String, String> environment : new Map[] {Map.of(), Map.of(VARIABLE, " "), Map.of("CI", "false")}) {
            assertThatThrownBy(() -> TestVariables.require(environment, VARIABLE, "jdbc:x://127.0.0.1/test"))
                    .isInstanceOf(TestAbortedException.class)
                    .hasMessageContaining(VARIABLE + " is not set")
                    .hasMessageContaining("jdbc:x://127.0.0.1/test")
                    .hasMessageContaining("skipping");
        }
    }

    @Test
    void anUnsetVariableFailsTheTestOnCi() {
        for (String ci : new String[] {"true", "TRUE", "1"}) {
            assertThatThrownBy(() -> TestVariables.require(Map.of("CI", ci), VARIABLE, "jdbc:x://127.0.0.1/test"))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining(VARIABLE + " is not set")
                    .hasMessageContaining("CI=true");
        }
    }
}
