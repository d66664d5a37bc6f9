package io.vesta.autoconfigure.actuate;

import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.segment.VestaSegmentAutoConfiguration;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentView;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

import javax.sql.DataSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code segments} entry of the {@code vesta} endpoint: each business tag's segments and buffer state. */
class VestaEndpointSegmentsTests {

    private final String table = "vesta_segment_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, VestaAutoConfiguration.class,
                    VestaSegmentAutoConfiguration.class, EndpointAutoConfiguration.class, VestaEndpointAutoConfiguration.class))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + table + ";DB_CLOSE_DELAY=-1",
                    "vesta.machine-id.value=12", "management.endpoints.web.exposure.include=vesta",
                    "vesta.segment.table=" + table, "vesta.segment.initialize-schema=always");

    @Test
    @SuppressWarnings("unchecked")
    void endpointListsEachTagsSegmentAndBufferState() {
        runner.withPropertyValues("vesta.segment.enabled=true").run(context -> {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            jdbc.update("INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES ('orders', 1, 100, 'Orders')");
            jdbc.update("INSERT INTO " + table + " (biz_tag, max_id, step, description) VALUES ('invoices', 501, 10, 'Invoices')");
            SegmentIdService segments = context.getBean(SegmentIdService.class);
            segments.nextIds("orders", 5);
            segments.nextId("invoices");

            Map<String, Object> identity = context.getBean(VestaEndpoint.class).identity();
            assertThat(identity).containsEntry("machineId", 12L).containsKey("segments");
            Map<String, Object> segmentMode = (Map<String, Object>) identity.get("segments");
            assertThat(segmentMode).containsEntry("table", table);
            List<SegmentView> tags = (List<SegmentView>) segmentMode.get("tags");
            assertThat(tags).extracting(SegmentView::bizTag).containsExactly("invoices", "orders");
            assertThat(tags.get(0)).extracting(SegmentView::segmentStart, SegmentView::segmentEnd, SegmentView::position,
                    SegmentView::tableStep).containsExactly(501L, 511L, 502L, 10);
            assertThat(tags.get(1)).extracting(SegmentView::segmentStart, SegmentView::segmentEnd, SegmentView::position,
                    SegmentView::step).containsExactly(1L, 101L, 6L, 100);
            assertThat(tags.get(1).waits()).isEqualTo(1); // the first call for a tag always waits for the database
        });
    }

    @Test
    void endpointWithoutSegmentModeShowsTheIdentityOnly() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(SegmentIdService.class);
            assertThat(context.getBean(VestaEndpoint.class).identity()).containsEntry("machineId", 12L)
                    .doesNotContainKey("segments");
        });
    }
}
