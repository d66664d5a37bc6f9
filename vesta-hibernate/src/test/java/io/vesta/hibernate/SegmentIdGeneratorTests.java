package io.vesta.hibernate;

import io.vesta.SegmentNumbers;
import io.vesta.hibernate.fixtures.entity.BadTagOrder;
import io.vesta.hibernate.fixtures.entity.SegmentOrder;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentSchema;
import org.h2.jdbcx.JdbcDataSource;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** @VestaId(segment = "orders"): dense numbers of a segment tag, from the real SegmentIdService on H2. */
class SegmentIdGeneratorTests {

    private static SegmentIdService segments(String url, boolean autoCreate) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url);
        SegmentSchema.initialize(dataSource, "vesta_segment");
        return SegmentIdService.builder().dataSource(dataSource).autoCreate(autoCreate).defaultStep(100).build();
    }

    @Test
    void aSegmentIdentifierTakesTheTagsNextNumbersInOrder() {
        String url = TestSessionFactory.h2();
        try (SegmentIdService segments = segments(url, true);
                TestSessionFactory hibernate = TestSessionFactory.start(url,
                        Map.of(VestaIdGenerator.SEGMENT_NUMBERS, segments), SegmentOrder.class)) {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 250; i++) {
                SegmentOrder order = hibernate.sessionFactory.fromTransaction(session -> {
                    SegmentOrder o = new SegmentOrder("tea");
                    session.persist(o);
                    return o;
                });
                ids.add(order.getId());
            }
            assertThat(ids).first().isEqualTo(1L);
            assertThat(ids).isSorted().doesNotHaveDuplicates().last().isEqualTo(250L);
        }
    }

    @Test
    void aTagOutsideThePatternStopsStartUpNamingTheEntityThePropertyAndTheEscapedTag() {
        String url = TestSessionFactory.h2();
        try (SegmentIdService segments = segments(url, true)) {
            Throwable failure = catchThrowable(() -> TestSessionFactory.start(url,
                    Map.of(VestaIdGenerator.SEGMENT_NUMBERS, segments), BadTagOrder.class).close());
            while (failure.getCause() != null && !String.valueOf(failure.getMessage()).contains("@VestaId(segment)")) {
                failure = failure.getCause();
            }
            assertThat(failure).hasMessageStartingWith("@VestaId(segment) of " + BadTagOrder.class.getName()
                    + ".id must be 1 to 128 characters matching " + SegmentNumbers.BIZ_TAG_PATTERN)
                    .hasMessageContaining("was \"orders\\u200b\"");
            assertThat(segments.segments()).isEmpty();
        }
    }

    @Test
    void withoutSegmentNumbersStartUpFailsNamingTheEntityThePropertyAndTheTag() {
        Throwable failure = catchThrowable(() -> TestSessionFactory.start(TestSessionFactory.h2(), Map.of(),
                SegmentOrder.class).close());
        while (failure.getCause() != null) {
            failure = failure.getCause();
        }
        assertThat(failure).hasMessageContaining("@VestaId(segment = \"orders\") on " + SegmentOrder.class.getName()
                + ".id needs the segment numbers of tag 'orders'").hasMessageContaining("'vesta.segment-numbers' is not set");
    }

    @Test
    void anUnknownTagFailsTheInsertNamingTheEntityThePropertyAndTheTag() {
        String url = TestSessionFactory.h2();
        Map<String, Object> settings = new HashMap<>();
        try (SegmentIdService segments = segments(url, false)) {
            settings.put(VestaIdGenerator.SEGMENT_NUMBERS, segments);
            try (TestSessionFactory hibernate = TestSessionFactory.start(url, settings, SegmentOrder.class)) {
                SessionFactory sessionFactory = hibernate.sessionFactory;
                Throwable failure = catchThrowable(() -> sessionFactory.inTransaction(session ->
                        session.persist(new SegmentOrder("tea"))));
                assertThat(failure).hasStackTraceContaining("@VestaId(segment = \"orders\") on "
                        + SegmentOrder.class.getName() + ".id could not take a number of tag 'orders'");
            }
        }
    }
}
