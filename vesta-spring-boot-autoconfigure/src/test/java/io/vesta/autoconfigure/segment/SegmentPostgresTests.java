package io.vesta.autoconfigure.segment;

import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.segment.SegmentIdService;
import io.vesta.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bean on a real PostgreSQL named by {@value TestDatabase#POSTGRES_URL} through Boot's own DataSource (Hikari),
 * skipped or failed by {@link TestDatabase}'s rule when the variable is unset.
 */
class SegmentPostgresTests {

    private final String table = TestDatabase.uniqueName("vesta_segment");

    @Test
    void twoNodesOnOnePostgresTableNeverIssueTheSameNumber() throws Exception {
        String url = TestDatabase.POSTGRESQL.url();
        ApplicationContextRunner node = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                        VestaSegmentAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url, "spring.datasource.hikari.maximum-pool-size=4",
                        "vesta.segment.enabled=true", "vesta.segment.initialize-schema=always",
                        "vesta.segment.auto-create=true", "vesta.segment.default-step=50", "vesta.segment.max-step=400",
                        "vesta.segment.table=" + table);
        ConcurrentLinkedQueue<Long> issued = new ConcurrentLinkedQueue<>();
        try {
            // Two nodes: each its own machine ID, as two processes of a deployment have.
            node.withPropertyValues("vesta.machine-id.value=3").run(first -> node.withPropertyValues("vesta.machine-id.value=4").run(second -> {
                assertThat(first).hasNotFailed();
                assertThat(second).hasNotFailed();
                List<SegmentIdService> services = List.of(first.getBean(SegmentIdService.class),
                        second.getBean(SegmentIdService.class));
                ExecutorService threads = Executors.newFixedThreadPool(4);
                try {
                    List<Future<?>> work = new ArrayList<>();
                    for (int t = 0; t < 4; t++) {
                        SegmentIdService service = services.get(t % 2);
                        work.add(threads.submit(() -> {
                            for (int i = 0; i < 5_000; i++) {
                                issued.add(service.nextId("orders"));
                            }
                        }));
                    }
                    for (Future<?> future : work) {
                        future.get(60, TimeUnit.SECONDS);
                    }
                } finally {
                    threads.shutdownNow();
                }
                JdbcTemplate jdbc = new JdbcTemplate(first.getBean(DataSource.class));
                assertThat(jdbc.queryForObject("SELECT step FROM " + table + " WHERE biz_tag = 'orders'", Integer.class))
                        .isEqualTo(50);
                long maxId = jdbc.queryForObject("SELECT max_id FROM " + table + " WHERE biz_tag = 'orders'", Long.class);
                assertThat(issued).hasSize(20_000).doesNotHaveDuplicates().allSatisfy(id -> assertThat(id).isBetween(1L, maxId - 1));
            }));
        } finally {
            node.withPropertyValues("vesta.machine-id.value=3").run(context -> new JdbcTemplate(context.getBean(DataSource.class)).execute("DROP TABLE IF EXISTS " + table));
        }
    }
}
