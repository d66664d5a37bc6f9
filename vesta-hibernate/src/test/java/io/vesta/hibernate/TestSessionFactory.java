package io.vesta.hibernate;

import io.vesta.EmbeddedIdService;
import io.vesta.IdService;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.generator.Generator;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * Plain Hibernate, no Spring: a {@code SessionFactory} on a counting pool, given an {@code IdService} of machine
 * {@link #MACHINE} under {@link VestaIdGenerator#ID_SERVICE}, batching 50 inserts, with its tables created.
 */
final class TestSessionFactory implements AutoCloseable {

    static final long MACHINE = 17;

    final EmbeddedIdService ids;

    final CountingDataSource dataSource;

    final SessionFactory sessionFactory;

    private TestSessionFactory(EmbeddedIdService ids, CountingDataSource dataSource, SessionFactory sessionFactory) {
        this.ids = ids;
        this.dataSource = dataSource;
        this.sessionFactory = sessionFactory;
    }

    /** A JDBC URL of an in-memory H2 database of its own. */
    static String h2() {
        return "jdbc:h2:mem:vesta-hibernate-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    /** The standard settings plus {@code settings}, which may replace them (a {@code null} removes one). */
    static TestSessionFactory start(String url, Map<String, Object> settings, Class<?>... entities) {
        EmbeddedIdService ids = EmbeddedIdService.builder().machineId(MACHINE).build();
        CountingDataSource dataSource = new CountingDataSource(url);
        try {
            return new TestSessionFactory(ids, dataSource, sessionFactory(dataSource, ids, settings, entities));
        } catch (RuntimeException | Error e) {
            dataSource.close();
            ids.close();
            throw e;
        }
    }

    /** Builds a {@code SessionFactory} and closes what it opened if that fails. */
    static SessionFactory sessionFactory(CountingDataSource dataSource, IdService ids, Map<String, Object> settings,
            Class<?>... entities) {
        Map<String, Object> all = new HashMap<>();
        all.put(AvailableSettings.JAKARTA_NON_JTA_DATASOURCE, dataSource);
        all.put(AvailableSettings.HBM2DDL_AUTO, "create-drop");
        all.put(AvailableSettings.STATEMENT_BATCH_SIZE, 50);
        all.put(AvailableSettings.ORDER_INSERTS, true);
        all.put(VestaIdGenerator.ID_SERVICE, ids);
        all.putAll(settings);
        all.values().removeIf(value -> value == null);
        StandardServiceRegistry registry = new StandardServiceRegistryBuilder().applySettings(all).build();
        try {
            MetadataSources sources = new MetadataSources(registry);
            for (Class<?> entity : entities) {
                sources.addAnnotatedClass(entity);
            }
            return sources.buildMetadata().buildSessionFactory();
        } catch (RuntimeException e) {
            StandardServiceRegistryBuilder.destroy(registry);
            throw e;
        }
    }

    <T> T inTransaction(Function<Session, T> work) {
        return sessionFactory.fromTransaction(work);
    }

    <T> T persisted(T entity) {
        return inTransaction(session -> {
            session.persist(entity);
            return entity;
        });
    }

    <T> T find(Class<T> type, Object id) {
        return inTransaction(session -> session.find(type, id));
    }

    Generator generatorOf(Class<?> entity) {
        return sessionFactory.unwrap(SessionFactoryImplementor.class).getMappingMetamodel().getEntityDescriptor(entity)
                .getGenerator();
    }

    @Override
    public void close() {
        try {
            sessionFactory.close();
        } finally {
            dataSource.close();
            ids.close();
        }
    }
}
