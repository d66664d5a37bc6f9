package io.vesta.autoconfigure.mybatis;

import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.test.fixtures.mybatis.mapper.AnnotatedOrderMapper;
import org.apache.ibatis.annotations.Mapper;
import org.mybatis.spring.annotation.MapperScan;
import org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * Spring Boot's MyBatis with the Vesta starter on tables of the test's own. What the interceptor does to inserts is
 * {@code vesta-mybatis}'s to test; here, that every {@code SqlSessionFactory} of a context gets it.
 */
final class MyBatisTestSupport {

    static final long MACHINE = 21;

    static final String XML_MAPPERS = "classpath:io/vesta/test/fixtures/mybatis/mapper/XmlOrderMapper.xml";

    private MyBatisTestSupport() {
    }

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

        String[] properties() {
            return new String[] { "mybatis.configuration-properties.orders=" + orders,
                    "mybatis.configuration-properties.codes=" + codes };
        }
    }

    /** The MyBatis starter with both mappers, machine ID {@link #MACHINE}, on {@code url}. */
    static ApplicationContextRunner runner(String url, Tables tables) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaMyBatisAutoConfiguration.class,
                        DataSourceAutoConfiguration.class, MybatisAutoConfiguration.class))
                .withUserConfiguration(Mappers.class)
                .withPropertyValues("vesta.machine-id.value=" + MACHINE, "spring.datasource.url=" + url,
                        "spring.datasource.hikari.connection-timeout=5000", "mybatis.mapper-locations=" + XML_MAPPERS)
                .withPropertyValues(tables.properties());
    }

    static String h2() {
        return "jdbc:h2:mem:vesta-mybatis-" + UUID.randomUUID();
    }

    @Configuration(proxyBeanMethods = false)
    @MapperScan(basePackageClasses = AnnotatedOrderMapper.class, annotationClass = Mapper.class)
    static class Mappers {
    }
}
