package io.vesta.benchmarks;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.boot.MetadataSources;
import org.hibernate.boot.registry.StandardServiceRegistry;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.id.IdentifierGenerator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;

import java.util.concurrent.TimeUnit;

/**
 * Hibernate's pooled {@code SEQUENCE} on PostgreSQL, the usual JPA answer to dense numbers: a minimal
 * SessionFactory with one entity whose {@code @SequenceGenerator} has {@code allocationSize = 50}, and its
 * identifier generator called as Hibernate calls it before an insert (pooled optimizer: one {@code nextval}
 * per 50 IDs, in the caller's thread). Under the settings of {@link SegmentBenchmark}, on the same counting pool.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch"})
public class SequenceBenchmark {

    static final int ALLOCATION_SIZE = 50;

    @Entity
    @Table(name = "vesta_bench_ticket")
    public static class Ticket {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "ticket")
        @SequenceGenerator(name = "ticket", sequenceName = "vesta_bench_ticket_seq", allocationSize = ALLOCATION_SIZE)
        Long id;
    }

    @State(Scope.Benchmark)
    public static class HibernateState extends DatabaseBenchmarkState {

        SessionFactory sessionFactory;
        IdentifierGenerator generator;

        @Setup(Level.Trial)
        public void build() {
            open();
            StandardServiceRegistry registry = new StandardServiceRegistryBuilder()
                    .applySetting(AvailableSettings.DATASOURCE, dataSource)
                    .applySetting(AvailableSettings.HBM2DDL_AUTO, "create-drop")
                    .build();
            sessionFactory = new MetadataSources(registry).addAnnotatedClass(Ticket.class).buildMetadata().buildSessionFactory();
            generator = (IdentifierGenerator) sessionFactory.unwrap(SessionFactoryImplementor.class).getMappingMetamodel()
                    .getEntityDescriptor(Ticket.class).getGenerator();
        }

        @Setup(Level.Iteration)
        public void startIteration(IterationParams iteration) {
            startIteration();
        }

        @TearDown(Level.Iteration)
        public void endIteration(IterationParams iteration) {
            super.endIteration(iteration);
        }

        @TearDown(Level.Trial)
        public void close(BenchmarkParams benchmark) {
            sessionFactory.close(); // create-drop: drops the sequence and the table
            finish(benchmark, ALLOCATION_SIZE);
        }
    }

    /** A session per thread, as each request of an application has its own. */
    @State(Scope.Thread)
    public static class Session {
        SharedSessionContractImplementor session;

        @Setup(Level.Trial)
        public void open(HibernateState state) {
            StatelessSession stateless = state.sessionFactory.openStatelessSession();
            session = (SharedSessionContractImplementor) stateless;
        }

        @TearDown(Level.Trial)
        public void close() {
            session.close();
        }
    }

    @Benchmark
    @Threads(1)
    public Object hibernate1Thread(HibernateState state, Session session, DatabaseBenchmarkState.Issued issued) {
        issued.ids++;
        return state.generator.generate(session.session, null);
    }

    @Benchmark
    @Threads(2)
    public Object hibernate2Threads(HibernateState state, Session session, DatabaseBenchmarkState.Issued issued) {
        issued.ids++;
        return state.generator.generate(session.session, null);
    }
}
