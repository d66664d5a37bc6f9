package io.vesta.mybatis;

import io.vesta.EmbeddedIdService;
import io.vesta.IdFormat;
import io.vesta.VestaId;
import io.vesta.test.fixtures.mybatis.CodedOrder;
import io.vesta.test.fixtures.mybatis.Order;
import org.apache.ibatis.builder.StaticSqlSource;
import org.apache.ibatis.executor.Executor;
import org.apache.ibatis.mapping.MappedStatement;
import org.apache.ibatis.mapping.SqlCommandType;
import org.apache.ibatis.plugin.Invocation;
import org.apache.ibatis.session.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** Which property of which object gets an ID, without a database. */
class VestaMyBatisInterceptorTests {

    /** Where the statement would go next: nowhere, it reports one row written. */
    private static final Executor NO_DATABASE = (Executor) Proxy.newProxyInstance(Executor.class.getClassLoader(),
            new Class<?>[] { Executor.class }, (proxy, method, args) -> 1);

    private final EmbeddedIdService ids = EmbeddedIdService.builder().machineId(5).build();

    private final Configuration configuration = new Configuration();

    @AfterEach
    void close() {
        ids.close();
    }

    @Test
    void anIdOfAnotherTypeIsLeftToTheDatabase() throws Throwable {
        IntegerId row = new IntegerId();
        insert(new VestaMyBatisInterceptor(ids, "id"), row);
        assertThat(row.id).isNull();
        assertThat(ids.idsIssued()).isZero();
    }

    @Test
    void aVestaIdOnAPropertyThatCannotHoldOneFailsNamingIt() {
        assertThatIllegalStateException().isThrownBy(() -> insert(new VestaMyBatisInterceptor(ids, "id"), new AnnotatedInteger()))
                .withMessage("@VestaId on " + AnnotatedInteger.class.getName()
                        + ".serial needs a Long, long or String property, but it is a java.lang.Integer");
    }

    @Test
    void theAnnotatedPropertyWinsOverTheIdProperty() throws Throwable {
        AnnotatedSerial row = new AnnotatedSerial();
        insert(new VestaMyBatisInterceptor(ids, "id"), row);
        assertThat(row.serial).isNotNull();
        assertThat(row.id).isNull();
    }

    @Test
    void theIdPropertyIsConfigurableAndEmptyMeansAnnotatedPropertiesOnly() throws Throwable {
        Serial named = new Serial();
        insert(new VestaMyBatisInterceptor(ids, "serial"), named);
        assertThat(named.serial).isNotNull();
        assertThat(named.id).isNull();

        Order order = new Order("not mine");
        CodedOrder coded = new CodedOrder("mine");
        insert(new VestaMyBatisInterceptor(ids, ""), List.of(order, coded));
        assertThat(order.getId()).isNull();
        assertThat(coded.getCode()).isNotNull();
    }

    @Test
    void aPrimitiveZeroAsksForAnIdAndAnyOtherValueIsKept() throws Throwable {
        Primitive unset = new Primitive();
        Primitive preset = new Primitive();
        preset.id = 42;
        insert(new VestaMyBatisInterceptor(ids, "id"), new Primitive[] { unset, preset });
        assertThat(ids.expId(unset.id).machine()).isEqualTo(5);
        assertThat(preset.id).isEqualTo(42);
    }

    @Test
    void aMapInsertedAsARowGetsItsIdKeyWhenThatIsPresentAndNull() throws Throwable {
        Map<String, Object> row = new HashMap<>();
        row.put("id", null);
        row.put("item", "map");
        Map<String, Object> noId = new HashMap<>(Map.of("item", "no id key"));
        insert(new VestaMyBatisInterceptor(ids, "id"), List.of(row, noId));
        assertThat(row.get("id")).isInstanceOf(Long.class);
        assertThat(noId).doesNotContainKey("id");
    }

    @Test
    void simpleValuesAreNotRows() throws Throwable {
        insert(new VestaMyBatisInterceptor(ids, "id"), List.of("text", 12L, 3));
        assertThat(ids.idsIssued()).isZero();
    }

    @Test
    void aFormatOnALongOrBesideASegmentOrTwoFormatsFailNamingTheClassThePropertyAndTheReason() {
        assertThatIllegalArgumentException().isThrownBy(() -> insert(new VestaMyBatisInterceptor(ids, null), new FormattedLong()))
                .withMessageStartingWith("@VestaId(format = BASE32) on " + FormattedLong.class.getName()
                        + ".serial needs a String property, but it is a java.lang.Long");
        assertThatIllegalArgumentException().isThrownBy(() -> insert(new VestaMyBatisInterceptor(ids, null), new FormattedSegment()))
                .withMessageStartingWith("@VestaId(format = BASE62) on " + FormattedSegment.class.getName()
                        + ".serial cannot be combined with segment = \"tickets\"");
        assertThatIllegalArgumentException().isThrownBy(() -> insert(new VestaMyBatisInterceptor(ids, null), new TwoFormats()))
                .withMessage("@VestaId(format) on " + TwoFormats.class.getName()
                        + ".serial takes at most one format, but it has 2: [BASE32, DECIMAL]");
        assertThat(ids.idsIssued()).isZero();
    }

    static class FormattedLong {
        @VestaId(format = IdFormat.BASE32)
        Long serial;
    }

    static class FormattedSegment {
        @VestaId(format = IdFormat.BASE62, segment = "tickets")
        String serial;
    }

    static class TwoFormats {
        @VestaId(format = { IdFormat.BASE32, IdFormat.DECIMAL })
        String serial;
    }

    private void insert(VestaMyBatisInterceptor interceptor, Object parameter) throws Throwable {
        MappedStatement statement = new MappedStatement.Builder(configuration, "insert",
                new StaticSqlSource(configuration, "insert into t values (?)"), SqlCommandType.INSERT).build();
        interceptor.intercept(new Invocation(NO_DATABASE,
                Executor.class.getMethod("update", MappedStatement.class, Object.class), new Object[] { statement, parameter }));
    }

    static class IntegerId {
        Integer id;

        public Integer getId() {
            return id;
        }

        public void setId(Integer id) {
            this.id = id;
        }
    }

    static class AnnotatedInteger {
        @VestaId
        Integer serial;
    }

    static class AnnotatedSerial {
        @VestaId
        Long serial;

        Long id;
    }

    static class Serial {
        Long serial;

        Long id;
    }

    static class Primitive {
        long id;
    }
}
