package io.vesta.mybatis;

import io.vesta.EmbeddedIdService;
import io.vesta.mybatis.fixtures.mapper.AnnotatedOrderMapper;
import io.vesta.mybatis.fixtures.mapper.XmlOrderMapper;
import org.apache.ibatis.datasource.pooled.PooledDataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Function;

/**
 * Plain MyBatis, no Spring: a {@code SqlSessionFactory} with both mappers ({@code XmlOrderMapper.xml} found beside
 * its interface) and the interceptor on an {@code IdService} of machine {@link #MACHINE}, on tables of its own.
 */
final class TestSqlSessionFactory implements AutoCloseable {

    static final long MACHINE = 21;

    final EmbeddedIdService ids = EmbeddedIdService.builder().machineId(MACHINE).build();

    final SqlSessionFactory factory;

    private final PooledDataSource dataSource;

    /** Table names with a random suffix, so that runs on a shared server never meet. */
    record Tables(String orders, String codes) {

        static Tables random() {
            String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
            return new Tables("vesta_mb_orders_" + suffix, "vesta_mb_codes_" + suffix);
        }

        void create(DataSource dataSource) throws SQLException {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("create table " + orders + " (id bigint primary key, item varchar(100))");
                statement.execute("create table " + codes + " (code varchar(20) primary key, item varchar(100))");
            }
        }

        void drop(Connection connection) throws SQLException {
            try (Statement statement = connection.createStatement()) {
                statement.execute("drop table if exists " + orders);
                statement.execute("drop table if exists " + codes);
            }
        }

        /** The mappers' {@code ${orders}} and {@code ${codes}}. */
        Properties variables() {
            Properties variables = new Properties();
            variables.setProperty("orders", orders);
            variables.setProperty("codes", codes);
            return variables;
        }
    }

    TestSqlSessionFactory(String url, Tables tables) throws SQLException {
        this.dataSource = new PooledDataSource(DriverManager.getDriver(url).getClass().getName(), url, new Properties());
        try {
            Configuration configuration = new Configuration(new Environment("test", new JdbcTransactionFactory(), dataSource));
            configuration.setVariables(tables.variables());
            configuration.addInterceptor(new VestaMyBatisInterceptor(ids, VestaMyBatisInterceptor.DEFAULT_ID_PROPERTY));
            configuration.addMapper(AnnotatedOrderMapper.class);
            configuration.addMapper(XmlOrderMapper.class);
            this.factory = new SqlSessionFactoryBuilder().build(configuration);
            tables.create(dataSource);
        } catch (SQLException | RuntimeException e) {
            close();
            throw e;
        }
    }

    static String h2() {
        return "jdbc:h2:mem:vesta-mybatis-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    /** Runs {@code work} on a mapper of an auto-committing session. */
    <M, R> R withMapper(Class<M> type, Function<M, R> work) {
        try (SqlSession session = factory.openSession(true)) {
            return work.apply(session.getMapper(type));
        }
    }

    String itemOf(long id) {
        return withMapper(AnnotatedOrderMapper.class, mapper -> mapper.itemOf(id));
    }

    String itemOfCode(String code) {
        return withMapper(AnnotatedOrderMapper.class, mapper -> mapper.itemOfCode(code));
    }

    long count() {
        return withMapper(AnnotatedOrderMapper.class, AnnotatedOrderMapper::count);
    }

    long issued() {
        return ids.idsIssued();
    }

    @Override
    public void close() {
        dataSource.forceCloseAll();
        ids.close();
    }
}
