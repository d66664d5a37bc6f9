package io.vesta.mybatis;

import io.vesta.EmbeddedIdService;
import io.vesta.SegmentNumbers;
import io.vesta.VestaId;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentSchema;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.datasource.pooled.PooledDataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** @VestaId(segment = "tickets"): MyBatis inserts numbered by a segment tag, from the real SegmentIdService on H2. */
class SegmentIdInterceptorTests {

    public static class Ticket {

        @VestaId(segment = "tickets")
        private Long id;

        private final String title;

        public Ticket(String title) {
            this.title = title;
        }

        public Long getId() {
            return id;
        }

        public void setId(Long id) {
            this.id = id;
        }

        public String getTitle() {
            return title;
        }
    }

    /** A tag outside the pattern: ';' would cut it short on a URL, and is refused everywhere. */
    public static class BadTicket {

        @VestaId(segment = "tickets;x")
        private Long id;

        public Long getId() {
            return id;
        }

        public void setId(Long id) {
            this.id = id;
        }

        public String getTitle() {
            return "bad";
        }
    }

    public interface TicketMapper {

        @Insert("insert into tickets (id, title) values (#{id}, #{title})")
        int insertBad(BadTicket ticket);

        @Insert("insert into tickets (id, title) values (#{id}, #{title})")
        int insert(Ticket ticket);

        @Insert("<script>insert into tickets (id, title) values"
                + "<foreach collection='list' item='t' separator=','>(#{t.id}, #{t.title})</foreach></script>")
        int insertAll(List<Ticket> tickets);
    }

    private static SqlSessionFactory sessions(String url, SegmentNumbers segments) throws Exception {
        PooledDataSource dataSource = new PooledDataSource("org.h2.Driver", url, new Properties());
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("create table if not exists tickets (id bigint primary key, title varchar(100))");
        }
        Configuration configuration = new Configuration(new Environment("test", new JdbcTransactionFactory(), dataSource));
        configuration.addInterceptor(new VestaMyBatisInterceptor(EmbeddedIdService.builder().machineId(3).build(), null,
                segments));
        configuration.addMapper(TicketMapper.class);
        return new SqlSessionFactoryBuilder().build(configuration);
    }

    private static SegmentIdService segments(String url, boolean autoCreate) {
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL(url);
        SegmentSchema.initialize(dataSource, "vesta_segment");
        return SegmentIdService.builder().dataSource(dataSource).autoCreate(autoCreate).defaultStep(10).build();
    }

    @Test
    void singleAndBatchInsertsTakeTheTagsNumbersInOrder() throws Exception {
        String url = TestSqlSessionFactory.h2();
        try (SegmentIdService segments = segments(url, true);
                SqlSession session = sessions(url, segments).openSession(true)) {
            Ticket first = new Ticket("printer");
            session.getMapper(TicketMapper.class).insert(first);
            List<Ticket> batch = List.of(new Ticket("coffee"), new Ticket("lights"), new Ticket("door"));
            session.getMapper(TicketMapper.class).insertAll(batch);

            assertThat(first.getId()).isEqualTo(1);
            assertThat(batch).extracting(Ticket::getId).containsExactly(2L, 3L, 4L);
        }
    }

    @Test
    void withoutSegmentNumbersTheInsertFailsNamingTheClassThePropertyAndTheTag() throws Exception {
        try (SqlSession session = sessions(TestSqlSessionFactory.h2(), null).openSession(true)) {
            Throwable failure = catchThrowable(() -> session.getMapper(TicketMapper.class).insert(new Ticket("x")));
            assertThat(failure).hasStackTraceContaining("@VestaId(segment = \"tickets\") on " + Ticket.class.getName()
                    + ".id needs the segment numbers of tag 'tickets'");
        }
    }

    @Test
    void anUnknownTagFailsTheInsertNamingIt() throws Exception {
        String url = TestSqlSessionFactory.h2();
        try (SegmentIdService segments = segments(url, false);
                SqlSession session = sessions(url, segments).openSession(true)) {
            Throwable failure = catchThrowable(() -> session.getMapper(TicketMapper.class).insert(new Ticket("x")));
            assertThat(failure).hasStackTraceContaining("@VestaId(segment = \"tickets\") on " + Ticket.class.getName()
                    + ".id could not take a number of tag 'tickets'");
        }
    }

    @Test
    void aTagOutsideThePatternFailsTheInsertNamingTheClassThePropertyAndThePattern() throws Exception {
        String url = TestSqlSessionFactory.h2();
        try (SegmentIdService segments = segments(url, true);
                SqlSession session = sessions(url, segments).openSession(true)) {
            Throwable failure = catchThrowable(() -> session.getMapper(TicketMapper.class).insertBad(new BadTicket()));
            assertThat(failure).hasStackTraceContaining("@VestaId(segment) of " + BadTicket.class.getName()
                    + ".id must be 1 to 128 characters matching " + SegmentNumbers.BIZ_TAG_PATTERN)
                    .hasStackTraceContaining("was \"tickets;x\"");
            assertThat(segments.segments()).isEmpty();
        }
    }
}
