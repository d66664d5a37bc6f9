package io.vesta.sample.embedded;

import io.vesta.IdService;
import io.vesta.segment.SegmentIdService;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.jdbc.core.simple.JdbcClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @JdbcTest} slice: a {@code DataSource} on an embedded database and no application beans. Vesta is part of
 * the slice, so the machine ID comes from a lease in the slice's database, and segment mode runs on it. The slice's
 * database is embedded, so Vesta creates both tables by default ({@code initialize-schema=embedded}).
 */
@JdbcTest(properties = { "vesta.machine-id.strategy=db", "vesta.segment.enabled=true", "vesta.segment.auto-create=true" })
class JdbcSliceTests {

    @Autowired
    private IdService idService;

    @Autowired
    private SegmentIdService segments;

    @Autowired
    private JdbcClient jdbc;

    @Test
    void theIdServiceIssuesUnderAMachineIdLeasedInTheSlicesDatabase() {
        long machine = idService.expId(idService.genId()).machine();

        assertThat(jdbc.sql("select machine_id from vesta_machine").query(Long.class).list()).containsExactly(machine);
    }

    @Test
    void segmentModeIssuesNumbersFromTheSlicesDatabase() {
        assertThat(segments.nextIds("orders", 3)).containsExactly(1, 2, 3);
        assertThat(jdbc.sql("select count(*) from vesta_segment where biz_tag = 'orders'").query(Long.class).single())
                .isEqualTo(1);
    }
}
