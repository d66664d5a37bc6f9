package io.vesta.mybatis;

import io.vesta.IdFormat;
import io.vesta.VestaId;
import io.vesta.test.fixtures.mybatis.CodedOrder;
import io.vesta.test.fixtures.mybatis.Order;
import io.vesta.test.fixtures.mybatis.mapper.AnnotatedOrderMapper;
import io.vesta.test.fixtures.mybatis.mapper.XmlOrderMapper;
import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static io.vesta.mybatis.TestSqlSessionFactory.MACHINE;
import static org.assertj.core.api.Assertions.assertThat;

/** What the interceptor does to real MyBatis inserts, run against each database. */
abstract class VestaMyBatisInterceptorContract {

    final TestSqlSessionFactory.Tables tables = TestSqlSessionFactory.Tables.random();

    /** The JDBC URL of this test's database. */
    abstract String url();

    private TestSqlSessionFactory start() throws SQLException {
        return new TestSqlSessionFactory(url(), tables);
    }

    @Test
    void anInsertThroughAnXmlMapperGetsAnIdFromThisNode() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            Order order = new Order("xml");
            mybatis.withMapper(XmlOrderMapper.class, mapper -> mapper.insert(order));
            assertThat(mybatis.ids.expId(order.getId()).machine()).isEqualTo(MACHINE);
            assertThat(mybatis.itemOf(order.getId())).isEqualTo("xml");
        }
    }

    @Test
    void anInsertThroughAnAnnotationMapperGetsAnIdAndAVestaIdStringPropertyToo() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            Order order = new Order("annotation");
            CodedOrder coded = new CodedOrder("coded");
            mybatis.withMapper(AnnotatedOrderMapper.class, mapper -> mapper.insert(order) + mapper.insertCoded(coded));
            assertThat(mybatis.ids.expId(order.getId()).machine()).isEqualTo(MACHINE);
            assertThat(mybatis.ids.expId(Long.parseLong(coded.getCode())).machine()).isEqualTo(MACHINE);
            assertThat(mybatis.itemOf(order.getId()))
                    .isEqualTo("annotation");
            assertThat(mybatis.itemOfCode(coded.getCode()))
                    .isEqualTo("coded");
        }
    }

    /** A row whose String code holds the ID in base 62. */
    public static class ShortCode {

        @VestaId(format = IdFormat.BASE62)
        private String code;

        private final String item;

        public ShortCode(String item) {
            this.item = item;
        }

        public String getCode() {
            return code;
        }

        public String getItem() {
            return item;
        }
    }

    public interface ShortCodeMapper {

        @Insert("insert into ${codes} (code, item) values (#{code}, #{item})")
        int insert(ShortCode code);

        @Insert("<script>insert into ${codes} (code, item) values"
                + "<foreach collection='list' item='c' separator=','>(#{c.code}, #{c.item})</foreach></script>")
        int insertAll(List<ShortCode> codes);
    }

    @Test
    void aStringPropertyWithAFormatGetsTheIdInThatFormSingleAndBatched() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            mybatis.factory.getConfiguration().addMapper(ShortCodeMapper.class);
            ShortCode single = new ShortCode("single");
            List<ShortCode> batch = List.of(new ShortCode("a"), new ShortCode("b"), new ShortCode("c"));
            mybatis.withMapper(ShortCodeMapper.class, mapper -> mapper.insert(single) + mapper.insertAll(batch));

            List<String> codes = new ArrayList<>();
            codes.add(single.getCode());
            batch.forEach(code -> codes.add(code.getCode()));
            assertThat(codes).allSatisfy(code -> {
                assertThat(code).hasSize(IdFormat.BASE62_LENGTH);
                assertThat(mybatis.ids.expId(IdFormat.BASE62.parse(code)).machine()).isEqualTo(MACHINE);
            });
            assertThat(codes).doesNotHaveDuplicates().isSorted();
            assertThat(mybatis.itemOfCode(single.getCode())).isEqualTo("single");
            assertThat(mybatis.itemOfCode(batch.get(2).getCode())).isEqualTo("c");
        }
    }

    @Test
    void aStatementWhoseKeyTheDatabaseGeneratesKeepsTheDatabasesKey() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            Order first = new Order("first");
            Order second = new Order("second");
            long before = mybatis.issued();
            mybatis.withMapper(AnnotatedOrderMapper.class, mapper -> mapper.insertKeyed(first) + mapper.insertKeyed(second));

            assertThat(mybatis.issued()).as("IDs taken from Vesta").isEqualTo(before);
            assertThat(second.getId()).as("the identity column's next value").isEqualTo(first.getId() + 1);
            assertThat(mybatis.<AnnotatedOrderMapper, String>withMapper(AnnotatedOrderMapper.class,
                    mapper -> mapper.itemOfKeyed(second.getId()))).isEqualTo("second");
        }
    }

    @Test
    void aStatementWithASelectKeyKeepsItsKey() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            Order order = new Order("selected");
            long before = mybatis.issued();
            mybatis.withMapper(AnnotatedOrderMapper.class, mapper -> mapper.insertWithSelectKey(order));

            assertThat(mybatis.issued()).as("IDs taken from Vesta").isEqualTo(before);
            assertThat(order.getId()).isEqualTo(424242L);
            assertThat(mybatis.<AnnotatedOrderMapper, String>withMapper(AnnotatedOrderMapper.class,
                    mapper -> mapper.itemOfKeyed(424242L))).isEqualTo("selected");
        }
    }

    @Test
    void aForeachInsertOfAListGivesEveryRowItsOwnId() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            List<Order> orders = IntStream.range(0, 25).mapToObj(i -> new Order("row-" + i)).toList();
            long before = mybatis.issued();
            assertThat(mybatis.<XmlOrderMapper, Integer>withMapper(XmlOrderMapper.class, mapper -> mapper.insertAll(orders))).isEqualTo(25);

            assertThat(mybatis.issued() - before).isEqualTo(25);
            assertThat(orders).extracting(Order::getId).doesNotContainNull().doesNotHaveDuplicates().isSorted();
            assertThat(mybatis.count()).isEqualTo(25);
            orders.forEach(order -> assertThat(mybatis.itemOf(order.getId())).isEqualTo(order.getItem()));
        }
    }

    @Test
    void anArrayThatMyBatisFilesUnderTwoNamesGivesEachRowOneId() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            Order[] orders = { new Order("a"), new Order("b"), new Order("c") };
            long before = mybatis.issued();
            mybatis.withMapper(AnnotatedOrderMapper.class, mapper -> mapper.insertArray(orders));
            assertThat(mybatis.issued() - before).isEqualTo(3);
            assertThat(orders).extracting(Order::getId).doesNotContainNull().doesNotHaveDuplicates();
            assertThat(mybatis.count()).isEqualTo(3);
        }
    }

    @Test
    void aParamMapThatHoldsTheObjectUnderSeveralKeysGivesItOneId() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            Order order = new Order("tenant's");
            long before = mybatis.issued();
            mybatis.withMapper(AnnotatedOrderMapper.class, mapper -> mapper.insertFor(order, "tenant-1"));
            assertThat(mybatis.issued() - before).isEqualTo(1);
            assertThat(mybatis.itemOf(order.getId()))
                    .isEqualTo("tenant's");
        }
    }

    @Test
    void idsTheCallerSetAreKept() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            long repaired = mybatis.ids.makeId(1_000, 1);
            Order preset = new Order(repaired, "preset");
            List<Order> mixed = List.of(new Order(repaired + 1, "preset in batch"), new Order("new in batch"));
            long before = mybatis.issued();
            mybatis.withMapper(XmlOrderMapper.class, mapper -> mapper.insert(preset) + mapper.insertAll(mixed));

            assertThat(mybatis.issued() - before).isEqualTo(1);
            assertThat(preset.getId()).isEqualTo(repaired);
            assertThat(mixed.get(0).getId()).isEqualTo(repaired + 1);
            assertThat(mixed.get(1).getId()).isNotNull().isNotIn(repaired, repaired + 1);
            assertThat(mybatis.itemOf(repaired))
                    .isEqualTo("preset");
        }
    }

    @Test
    void statementsOtherThanInsertAreLeftAlone() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            Order order = new Order("never inserted");
            long before = mybatis.issued();
            mybatis.withMapper(AnnotatedOrderMapper.class, mapper -> mapper.rename(order));
            mybatis.withMapper(XmlOrderMapper.class, mapper -> mapper.deleteByItem(order));
            assertThat(order.getId()).isNull();
            assertThat(mybatis.issued()).isEqualTo(before);
        }
    }

    @Test
    void theBatchExecutorFillsTheObjectOfEveryQueuedInsert() throws SQLException {
        try (TestSqlSessionFactory mybatis = start()) {
            List<Order> orders = new ArrayList<>();
            try (SqlSession session = mybatis.factory.openSession(ExecutorType.BATCH)) {
                XmlOrderMapper mapper = session.getMapper(XmlOrderMapper.class);
                for (int i = 0; i < 10; i++) {
                    Order order = new Order("batched-" + i);
                    mapper.insert(order);
                    orders.add(order);
                    assertThat(order.getId()).as("set when queued, before the batch is sent").isNotNull();
                }
                session.flushStatements();
                session.commit();
            }
            assertThat(orders).extracting(Order::getId).doesNotHaveDuplicates();
            assertThat(mybatis.count()).isEqualTo(10);
            orders.forEach(order -> assertThat(mybatis.itemOf(order.getId())).isEqualTo(order.getItem()));
        }
    }
}
