package io.vesta.autoconfigure.mybatis;

import io.vesta.IdService;
import io.vesta.fixtures.mybatis.CodedOrder;
import io.vesta.fixtures.mybatis.Order;
import io.vesta.fixtures.mybatis.mapper.AnnotatedOrderMapper;
import io.vesta.fixtures.mybatis.mapper.XmlOrderMapper;
import org.apache.ibatis.session.ExecutorType;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static io.vesta.autoconfigure.mybatis.MyBatisTestSupport.MACHINE;
import static io.vesta.autoconfigure.mybatis.MyBatisTestSupport.issued;
import static org.assertj.core.api.Assertions.assertThat;

/** What the interceptor does to real MyBatis inserts, run against each database. */
abstract class VestaMyBatisInterceptorContract {

    final MyBatisTestSupport.Tables tables = MyBatisTestSupport.Tables.random();

    /** The JDBC URL of this test's database. */
    abstract String url();

    private void run(ContextConsumer<AssertableApplicationContext> test) {
        MyBatisTestSupport.runner(url(), tables).run(context -> {
            assertThat(context).hasNotFailed();
            tables.create(context.getBean(DataSource.class));
            test.accept(context);
        });
    }

    @Test
    void anInsertThroughAnXmlMapperGetsAnIdFromThisNode() {
        run(context -> {
            Order order = new Order("xml");
            context.getBean(XmlOrderMapper.class).insert(order);
            assertThat(context.getBean(IdService.class).expId(order.getId()).machine()).isEqualTo(MACHINE);
            assertThat(context.getBean(AnnotatedOrderMapper.class).itemOf(order.getId())).isEqualTo("xml");
        });
    }

    @Test
    void anInsertThroughAnAnnotationMapperGetsAnIdAndAVestaIdStringPropertyToo() {
        run(context -> {
            AnnotatedOrderMapper mapper = context.getBean(AnnotatedOrderMapper.class);
            Order order = new Order("annotation");
            CodedOrder coded = new CodedOrder("coded");
            mapper.insert(order);
            mapper.insertCoded(coded);
            IdService ids = context.getBean(IdService.class);
            assertThat(ids.expId(order.getId()).machine()).isEqualTo(MACHINE);
            assertThat(ids.expId(Long.parseLong(coded.getCode())).machine()).isEqualTo(MACHINE);
            assertThat(mapper.itemOf(order.getId())).isEqualTo("annotation");
            assertThat(mapper.itemOfCode(coded.getCode())).isEqualTo("coded");
        });
    }

    @Test
    void aForeachInsertOfAListGivesEveryRowItsOwnId() {
        run(context -> {
            List<Order> orders = IntStream.range(0, 25).mapToObj(i -> new Order("row-" + i)).toList();
            long before = issued(context);
            assertThat(context.getBean(XmlOrderMapper.class).insertAll(orders)).isEqualTo(25);

            assertThat(issued(context) - before).isEqualTo(25);
            assertThat(orders).extracting(Order::getId).doesNotContainNull().doesNotHaveDuplicates().isSorted();
            AnnotatedOrderMapper mapper = context.getBean(AnnotatedOrderMapper.class);
            assertThat(mapper.count()).isEqualTo(25);
            orders.forEach(order -> assertThat(mapper.itemOf(order.getId())).isEqualTo(order.getItem()));
        });
    }

    @Test
    void anArrayThatMyBatisFilesUnderTwoNamesGivesEachRowOneId() {
        run(context -> {
            Order[] orders = { new Order("a"), new Order("b"), new Order("c") };
            long before = issued(context);
            context.getBean(AnnotatedOrderMapper.class).insertArray(orders);
            assertThat(issued(context) - before).isEqualTo(3);
            assertThat(orders).extracting(Order::getId).doesNotContainNull().doesNotHaveDuplicates();
            assertThat(context.getBean(AnnotatedOrderMapper.class).count()).isEqualTo(3);
        });
    }

    @Test
    void aParamMapThatHoldsTheObjectUnderSeveralKeysGivesItOneId() {
        run(context -> {
            Order order = new Order("tenant's");
            long before = issued(context);
            context.getBean(AnnotatedOrderMapper.class).insertFor(order, "tenant-1");
            assertThat(issued(context) - before).isEqualTo(1);
            assertThat(context.getBean(AnnotatedOrderMapper.class).itemOf(order.getId())).isEqualTo("tenant's");
        });
    }

    @Test
    void idsTheCallerSetAreKept() {
        run(context -> {
            IdService ids = context.getBean(IdService.class);
            long repaired = ids.makeId(1_000, 1);
            Order preset = new Order(repaired, "preset");
            List<Order> mixed = List.of(new Order(repaired + 1, "preset in batch"), new Order("new in batch"));
            long before = issued(context);
            context.getBean(XmlOrderMapper.class).insert(preset);
            context.getBean(XmlOrderMapper.class).insertAll(mixed);

            assertThat(issued(context) - before).isEqualTo(1);
            assertThat(preset.getId()).isEqualTo(repaired);
            assertThat(mixed.get(0).getId()).isEqualTo(repaired + 1);
            assertThat(mixed.get(1).getId()).isNotNull().isNotIn(repaired, repaired + 1);
            assertThat(context.getBean(AnnotatedOrderMapper.class).itemOf(repaired)).isEqualTo("preset");
        });
    }

    @Test
    void statementsOtherThanInsertAreLeftAlone() {
        run(context -> {
            Order order = new Order("never inserted");
            long before = issued(context);
            context.getBean(AnnotatedOrderMapper.class).rename(order);
            context.getBean(XmlOrderMapper.class).deleteByItem(order);
            assertThat(order.getId()).isNull();
            assertThat(issued(context)).isEqualTo(before);
        });
    }

    @Test
    void theBatchExecutorFillsTheObjectOfEveryQueuedInsert() {
        run(context -> {
            List<Order> orders = new ArrayList<>();
            try (SqlSession session = context.getBean(SqlSessionFactory.class).openSession(ExecutorType.BATCH)) {
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
            AnnotatedOrderMapper mapper = context.getBean(AnnotatedOrderMapper.class);
            assertThat(mapper.count()).isEqualTo(10);
            orders.forEach(order -> assertThat(mapper.itemOf(order.getId())).isEqualTo(order.getItem()));
        });
    }
}
