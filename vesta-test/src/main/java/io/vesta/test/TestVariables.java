package io.vesta.test;

import org.junit.jupiter.api.Assumptions;

import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The one rule for a test that needs a service named by an environment variable (a database's JDBC URL, a Redis
 * URL, an executable): unset, the test is skipped with a message naming the variable and an example value; unset
 * while {@code CI=true}, it fails, so that a CI run missing a service never passes by skipping. A variable that is
 * set is used as it is: a service that is not there fails the test wherever it runs.
 */
public final class TestVariables {

    /** The variable CI systems set to {@code true}. */
    public static final String CI = "CI";
    /** The suite's etcd member, its client URLs separated by commas: {@code http://127.0.0.1:2379}. */
    public static final String ETCD_ENDPOINTS = "VESTA_TEST_ETCD_ENDPOINTS";
    /** The {@code etcd} binary, for the tests that run members of their own: {@code /usr/bin/etcd}. */
    public static final String ETCD_SERVER = "VESTA_TEST_ETCD_SERVER";

    private TestVariables() {
    }

    /**
     * The value of {@code variable}; the test is skipped when it is unset or blank, or fails when {@code CI=true}.
     *
     * @param variable the environment variable, such as {@code VESTA_TEST_POSTGRES_URL}
     * @param example  a value that works on a developer's machine, shown in the message
     * @return the variable's value, never blank
     */
    public static String require(String variable, String example) {
        return require(System.getenv(), variable, example);
    }

    /** The suite's etcd member ({@value #ETCD_ENDPOINTS}): its client URLs. */
    public static List<URI> etcdEndpoints() {
        return Arrays.stream(require(ETCD_ENDPOINTS, "http://127.0.0.1:2379").split(","))
                .map(String::strip).filter(s -> !s.isEmpty()).map(URI::create).toList();
    }

    /** The etcd binary ({@value #ETCD_SERVER}) for members a test starts itself. */
    public static String etcdServer() {
        return require(ETCD_SERVER, "/usr/bin/etcd");
    }

    /** Whether this run is a CI run: {@code CI} is {@code true} (in any case) or {@code 1}. */
    public static boolean onCi() {
        return onCi(System.getenv());
    }

    static String require(Map<String, String> environment, String variable, String example) {
        String value = environment.get(variable);
        if (value != null && !value.isBlank()) {
            return value;
        }
        String unset = variable + " is not set (set it to a value such as " + example + ")";
        if (onCi(environment)) {
            throw new AssertionError(unset + ": CI=true, so a test that needs it fails rather than skips");
        }
        return Assumptions.abort(unset + ": skipping this test");
    }

    static boolean onCi(Map<String, String> environment) {
        String ci = environment.get(CI);
        return ci != null && (ci.strip().equalsIgnoreCase("true") || ci.strip().equals("1"));
    }
}
