package io.vesta.autoconfigure.mybatis;

import io.vesta.EmbeddedIdService;
import io.vesta.IdPropertyType;
import io.vesta.IdService;
import io.vesta.VestaId;
import io.vesta.autoconfigure.VestaAutoConfiguration;
import io.vesta.autoconfigure.jpa.VestaJpaAutoConfiguration;
import io.vesta.test.fixtures.mybatis.CodedOrder;
import io.vesta.test.fixtures.mybatis.Order;
import io.vesta.test.fixtures.mybatis.mapper.AnnotatedOrderMapper;
import io.vesta.test.fixtures.mybatis.mapper.CodedOrderMapper;
import io.vesta.test.fixtures.mybatis.mapper.XmlOrderMapper;
import io.vesta.mybatis.VestaMyBatisInterceptor;
import org.apache.ibatis.datasource.unpooled.UnpooledDataSource;
import org.apache.ibatis.mapping.Environment;
import org.apache.ibatis.plugin.Interceptor;
import org.apache.ibatis.session.Configuration;
import org.apache.ibatis.session.SqlSession;
import org.apache.ibatis.session.SqlSessionFactory;
import org.apache.ibatis.session.SqlSessionFactoryBuilder;
import org.apache.ibatis.transaction.jdbc.JdbcTransactionFactory;
import org.junit.jupiter.api.Test;
import org.mybatis.spring.SqlSessionFactoryBean;
import org.mybatis.spring.SqlSessionTemplate;
import org.mybatis.spring.boot.autoconfigure.MybatisAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.context.annotation.Primary;
import org.springframework.core.OverridingClassLoader;
import org.springframework.core.io.ClassPathResource;

import javax.sql.DataSource;
import java.lang.annotation.Annotation;
import java.util.Arrays;
import java.util.Properties;

import static io.vesta.autoconfigure.mybatis.MyBatisTestSupport.MACHINE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class VestaMyBatisAutoConfigurationTests {

    private final MyBatisTestSupport.Tables tables = MyBatisTestSupport.Tables.random();

    @Test
    void theInterceptorIsOnSpringBootsSqlSessionFactoryOnce() {
        MyBatisTestSupport.runner(MyBatisTestSupport.h2(), tables).run(context ->
                assertThat(vestaInterceptors(context.getBean(SqlSessionFactory.class))).isEqualTo(1));
    }

    @Test
    void factoriesTheApplicationBuildsGetTheInterceptorOnceToo() {
        // No mapper scanning here: it wants a single factory.
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaMyBatisAutoConfiguration.class,
                        DataSourceAutoConfiguration.class, MybatisAutoConfiguration.class))
                .withUserConfiguration(OwnFactories.class)
                .withPropertyValues("vesta.machine-id.value=" + MACHINE, "spring.datasource.url=" + MyBatisTestSupport.h2(),
                        "vesta.mybatis.id-property=id")
                .withPropertyValues(tables.properties())
                .run(context -> {
            assertThat(context).hasNotFailed().getBeans(SqlSessionFactory.class).containsOnlyKeys("plain", "withPlugins");
            SqlSessionFactory plain = context.getBean("plain", SqlSessionFactory.class);
            SqlSessionFactory withPlugins = context.getBean("withPlugins", SqlSessionFactory.class);
            assertThat(vestaInterceptors(plain)).isEqualTo(1);
            assertThat(vestaInterceptors(withPlugins)).isEqualTo(1);

            tables.create(context.getBean(DataSource.class));
            for (SqlSessionFactory factory : new SqlSessionFactory[] { plain, withPlugins }) {
                Order order = new Order("own factory");
                new SqlSessionTemplate(factory).getMapper(XmlOrderMapper.class).insert(order);
                assertThat(context.getBean(IdService.class).expId(order.getId()).machine()).isEqualTo(MACHINE);
            }
        });
    }

    /** Adding the starter changes no row of a table whose objects do not say {@code @VestaId}. */
    @Test
    void byDefaultOnlyVestaIdPropertiesAreFilled() {
        MyBatisTestSupport.runner(MyBatisTestSupport.h2(), tables).run(context -> {
            assertThat(context).hasNotFailed();
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            jdbc.execute("create table " + tables.orders() + " (id bigint, item varchar(100))");
            jdbc.execute("create table " + tables.codes() + " (code varchar(20) primary key, item varchar(100))");
            Order plain = new Order("plain Long id");
            CodedOrder coded = new CodedOrder("@VestaId code");

            context.getBean(XmlOrderMapper.class).insert(plain);
            context.getBean(AnnotatedOrderMapper.class).insertCoded(coded);

            assertThat(plain.getId()).isNull();
            assertThat(jdbc.queryForObject("select id from " + tables.orders(), Long.class)).isNull();
            assertThat(context.getBean(IdService.class).expId(Long.parseLong(coded.getCode())).machine()).isEqualTo(MACHINE);
        });
    }

    @Test
    void theIdPropertyFillsAPlainPropertyByNameWhenSet() {
        MyBatisTestSupport.runner(MyBatisTestSupport.h2(), tables).withPropertyValues("vesta.mybatis.id-property=id")
                .run(context -> {
                    tables.create(context.getBean(DataSource.class));
                    Order order = new Order("by name");
                    context.getBean(XmlOrderMapper.class).insert(order);
                    assertThat(context.getBean(IdService.class).expId(order.getId()).machine()).isEqualTo(MACHINE);
                });
    }

    @Test
    void withoutMyBatisThereIsNoInterceptor() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VestaAutoConfiguration.class, VestaMyBatisAutoConfiguration.class))
                .withPropertyValues("vesta.machine-id.value=" + MACHINE)
                .withClassLoader(new FilteredClassLoader(SqlSessionFactory.class))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(IdService.class)
                        .doesNotHaveBean(VestaMyBatisInterceptor.class));
    }

    @Test
    void aMyBatisApplicationWithoutHibernateGetsTheInterceptorAndNoJpaSupport() {
        MyBatisTestSupport.runner(MyBatisTestSupport.h2(), tables)
                .withConfiguration(AutoConfigurations.of(VestaJpaAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("org.hibernate", "jakarta.persistence"))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(VestaMyBatisInterceptor.class)
                            .doesNotHaveBean(VestaJpaAutoConfiguration.class);
                    tables.create(context.getBean(DataSource.class));
                    CodedOrder coded = new CodedOrder("no jpa");
                    context.getBean(AnnotatedOrderMapper.class).insertCoded(coded);
                    assertThat(coded.getCode()).isNotNull();
                });
    }

    /**
     * The real test of "no Hibernate at runtime": {@code @VestaId}, the interceptor and the row class are loaded
     * afresh by a class loader that cannot see Hibernate or JPA at all, and a real MyBatis insert still fills the
     * annotated property. (A FilteredClassLoader alone only hides classes from condition checks; classes already
     * loaded by the application class loader would still resolve Hibernate.) {@code @VestaId} refers to no Hibernate
     * type at all; {@code vesta-mybatis} compiles a project that uses it without Hibernate.
     */
    @Test
    void vestaIdWorksWithMyBatisWhereHibernateCannotBeLoaded() throws Exception {
        ClassLoader withoutHibernate = new OverridingClassLoader(
                new FilteredClassLoader("org.hibernate.", "jakarta.persistence.")) {
            @Override
            protected boolean isEligibleForOverriding(String className) {
                // IdPropertyType reads VestaId (its format and segment): both come from vesta-core's one loader.
                return className.equals(VestaId.class.getName()) || className.equals(IdPropertyType.class.getName())
                        || className.startsWith("io.vesta.mybatis.")
                        || className.startsWith("io.vesta.autoconfigure.") || className.startsWith("io.vesta.test.fixtures.");
            }
        };
        assertThatExceptionOfType(ClassNotFoundException.class)
                .isThrownBy(() -> withoutHibernate.loadClass("org.hibernate.annotations.IdGeneratorType"));
        Class<?> isolatedVestaId = withoutHibernate.loadClass(VestaId.class.getName());
        assertThat(isolatedVestaId).isNotSameAs(VestaId.class);
        assertThat(annotationNames(VestaId.class)).doesNotContain("org.hibernate.annotations.IdGeneratorType")
                .contains("java.lang.annotation.Retention");
        assertThat(annotationNames(isolatedVestaId)).doesNotContain("org.hibernate.annotations.IdGeneratorType")
                .contains("java.lang.annotation.Retention");

        try (EmbeddedIdService ids = EmbeddedIdService.builder().machineId(33).build()) {
            String url = MyBatisTestSupport.h2() + ";DB_CLOSE_DELAY=-1"; // unpooled: keep the database between connections
            Configuration configuration = new Configuration(new Environment("isolated", new JdbcTransactionFactory(),
                    new UnpooledDataSource("org.h2.Driver", url, "sa", "")));
            configuration.getVariables().setProperty("codes", tables.codes());
            configuration.getVariables().setProperty("orders", tables.orders());
            configuration.addInterceptor((Interceptor) withoutHibernate.loadClass(VestaMyBatisInterceptor.class.getName())
                    .getConstructor(IdService.class, String.class).newInstance(ids, "id"));
            Class<?> mapper = withoutHibernate.loadClass(CodedOrderMapper.class.getName());
            configuration.addMapper(mapper);
            Object row = withoutHibernate.loadClass(CodedOrder.class.getName()).getConstructor(String.class)
                    .newInstance("isolated");
            assertThat(row.getClass().getDeclaredField("code").getAnnotations()).hasSize(1);

            tables.create(configuration.getEnvironment().getDataSource());
            SqlSessionFactory factory = new SqlSessionFactoryBuilder().build(configuration);
            try (SqlSession session = factory.openSession(true)) {
                session.insert(mapper.getName() + ".insert", row);
            }
            String code = (String) row.getClass().getMethod("getCode").invoke(row);
            assertThat(code).isNotNull();
            assertThat(ids.expId(Long.parseLong(code)).machine()).isEqualTo(33);
        }
    }

    private static String[] annotationNames(Class<?> type) {
        return Arrays.stream(type.getAnnotations()).map(Annotation::annotationType).map(Class::getName)
                .toArray(String[]::new);
    }

    private static long vestaInterceptors(SqlSessionFactory factory) {
        return factory.getConfiguration().getInterceptors().stream().filter(VestaMyBatisInterceptor.class::isInstance)
                .count();
    }

    /** Two factories of the application's own, which make Spring Boot's back off: one bare, one given every plugin bean. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false) // MyBatis has a Configuration too
    static class OwnFactories {

        @Bean
        @Primary
        SqlSessionFactoryBean plain(DataSource dataSource, ApplicationContext context) {
            return factory(dataSource, context);
        }

        @Bean
        SqlSessionFactoryBean withPlugins(DataSource dataSource, ApplicationContext context,
                ObjectProvider<Interceptor> interceptors) {
            SqlSessionFactoryBean factory = factory(dataSource, context);
            factory.setPlugins(interceptors.orderedStream().toArray(Interceptor[]::new));
            return factory;
        }

        private static SqlSessionFactoryBean factory(DataSource dataSource, ApplicationContext context) {
            SqlSessionFactoryBean factory = new SqlSessionFactoryBean();
            factory.setDataSource(dataSource);
            Properties variables = new Properties();
            variables.setProperty("orders", context.getEnvironment().getRequiredProperty("mybatis.configuration-properties.orders"));
            variables.setProperty("codes", context.getEnvironment().getRequiredProperty("mybatis.configuration-properties.codes"));
            factory.setConfigurationProperties(variables);
            factory.setMapperLocations(new ClassPathResource("io/vesta/test/fixtures/mybatis/mapper/XmlOrderMapper.xml"));
            return factory;
        }
    }
}
