package io.vesta.hibernate;

import io.vesta.hibernate.fixtures.entity.DatedOrderNote;
import io.vesta.hibernate.fixtures.entity.SegmentOrder;
import io.vesta.segment.DatedNumberOverflowException;
import io.vesta.segment.DatedTag;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentSchema;
import io.vesta.test.ManualTimeSource;
import org.h2.jdbcx.JdbcDataSource;
import org.hibernate.id.IdentifierGenerationException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code @VestaId(segment = "orders")} where "orders" is a dated tag: entities get the date and the day's counter, on
 * a Long and on a String identifier, from the real SegmentIdService on H2 with a clock moved across midnight.
 */
class DatedSegmentIdGeneratorTests {

    @Test
    void entitiesTakeTheDateAndTheDaysCounterOnALongAndAStringIdentifier() {
        String url = TestSessionFactory.h2();
        // 23:59:59.999 on 31 January 2027 in Paris (22:59:59.999 UTC).
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2027-01-31T22:59:59.999Z"));
        try (SegmentIdService segments = segments(url, clock, DatedTag.Period.DAY, ZoneId.of("Europe/Paris"), 4, 1);
                TestSessionFactory hibernate = TestSessionFactory.start(url,
                        Map.of(VestaIdGenerator.SEGMENT_NUMBERS, segments), SegmentOrder.class, DatedOrderNote.class)) {
            assertThat(persist(hibernate, new SegmentOrder("tea")).getId()).isEqualTo(20270131_0001L);
            assertThat(persist(hibernate, new DatedOrderNote("fragile")).getId()).isEqualTo("202701310002");
            clock.advance(Duration.ofMillis(1));
            assertThat(persist(hibernate, new DatedOrderNote("urgent")).getId()).isEqualTo("202702010001");
            assertThat(persist(hibernate, new SegmentOrder("cake")).getId()).isEqualTo(20270201_0002L);

            SegmentOrder read = hibernate.sessionFactory.fromTransaction(session -> session.find(SegmentOrder.class,
                    20270201_0002L));
            assertThat(read).isNotNull();
        }
    }

    @Test
    void anOverflowFailsTheInsertNamingTheTagPeriodAndWidth() {
        String url = TestSessionFactory.h2();
        ManualTimeSource clock = new ManualTimeSource(Instant.parse("2027-01-31T12:00:00Z"));
        try (SegmentIdService segments = segments(url, clock, DatedTag.Period.MONTH, ZoneId.of("UTC"), 1, 9);
                TestSessionFactory hibernate = TestSessionFactory.start(url,
                        Map.of(VestaIdGenerator.SEGMENT_NUMBERS, segments), SegmentOrder.class)) {
            assertThat(persist(hibernate, new SegmentOrder("tea")).getId()).isEqualTo(202701_9L);
            Throwable failure = catchThrowable(() -> persist(hibernate, new SegmentOrder("cake")));
            assertThat(failure).isInstanceOf(IdentifierGenerationException.class)
                    .hasMessageContaining("@VestaId(segment = \"orders\")")
                    .hasCauseInstanceOf(DatedNumberOverflowException.class)
                    .hasMessageContaining("period 202701").hasMessageContaining("width 1");
        }
    }

    /** The real segment service on the H2 database at {@code url}, with "orders" a dated tag. */
    private static SegmentIdService segments(String url, ManualTimeSource clock, DatedTag.Period period, ZoneId zone,
            int width, long start) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(url);
        SegmentSchema.initialize(dataSource, "vesta_segment");
        return SegmentIdService.builder().dataSource(dataSource).timeSource(clock)
                .datedTag("orders", period, zone, width, start).build();
    }

    private static <T> T persist(TestSessionFactory hibernate, T entity) {
        return hibernate.sessionFactory.fromTransaction(session -> {
            session.persist(entity);
            return entity;
        });
    }
}
