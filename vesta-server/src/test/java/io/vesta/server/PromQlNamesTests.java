package io.vesta.server;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@link PromQlNames} takes for a name, on the shapes the rules and the dashboard use. */
class PromQlNamesTests {

    @Test
    void functionsAggregationsKeywordsNumbersAndDurationsAreNoMetrics() {
        PromQlNames names = PromQlNames.of("count by (job, instance) (increase(vesta_client_server_failures_total[5m]) > 0)"
                + " == count by (job, instance) (vesta_client_server_failures_total offset 1h30m) and on(server)"
                + " vesta_x:recorded < 0.5 * 365 * 86400 unless bool 1e3");

        assertThat(names.metrics()).containsExactly("vesta_client_server_failures_total", "vesta_x:recorded");
        assertThat(names.labels()).containsExactly("instance", "job", "server");
    }

    @Test
    void labelsInsideBracesAreLabelsAndTheirValuesAreIgnored() {
        PromQlNames names = PromQlNames.of("sum by (uri, status) (rate(http_server_requests_seconds_count{job=~\"$job\","
                + " uri=~\"/vesta/.*\", status!=\"200\", exception='none'}[$__rate_interval]))");

        assertThat(names.metrics()).containsExactly("http_server_requests_seconds_count");
        assertThat(names.labels()).containsExactly("exception", "job", "status", "uri");
    }

    @Test
    void aGrafanaLabelValuesQueryNamesItsMetricAndLabel() {
        PromQlNames names = PromQlNames.ofVariableQuery("label_values(process_uptime_seconds{job=~\"$job\"}, instance)");

        assertThat(names.metrics()).containsExactly("process_uptime_seconds");
        assertThat(names.labels()).containsExactly("instance", "job");
        assertThat(PromQlNames.ofVariableQuery("label_values(job)").metrics()).isEmpty();
    }
}
