package io.vesta.benchmarks;

import javax.sql.DataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * A DataSource that counts the database round trips made through it: every statement execution, commit and
 * rollback (with the PostgreSQL driver, BEGIN travels with the first statement and setAutoCommit sends
 * nothing). Calls made on a JMH worker thread are counted apart, with the time they took: those are callers
 * waiting on the database. Calls made on any other thread are background loads.
 */
final class RoundTripCountingDataSource implements InvocationHandler {

    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate",
            "executeBatch", "executeLargeBatch", "commit", "rollback");

    final LongAdder roundTrips = new LongAdder();
    final LongAdder callerRoundTrips = new LongAdder();
    final LongAdder callerNanos = new LongAdder();
    /** The longest single call made by a background thread: how long a background load takes at worst. */
    final LongAccumulator slowestBackgroundNanos = new LongAccumulator(Long::max, 0);

    private final DataSource target;

    private RoundTripCountingDataSource(DataSource target) {
        this.target = target;
    }

    static RoundTripCountingDataSource over(DataSource target) {
        return new RoundTripCountingDataSource(target);
    }

    DataSource dataSource() {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, this);
    }

    /** JMH names its worker threads {@code <benchmark>-jmh-worker-<n>}. */
    static boolean isCaller() {
        return Thread.currentThread().getName().contains("jmh-worker");
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        Object result = call(target, method, args);
        if (result instanceof Connection connection) {
            return wrap(Connection.class, connection);
        }
        return result;
    }

    private Object wrap(Class<?> type, Object delegate) {
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (!EXECUTIONS.contains(method.getName())) {
                Object result = call(delegate, method, args);
                if (result instanceof CallableStatement statement) {
                    return wrap(CallableStatement.class, statement);
                }
                if (result instanceof PreparedStatement statement) {
                    return wrap(PreparedStatement.class, statement);
                }
                if (result instanceof Statement statement && !(result instanceof Connection)) {
                    return wrap(Statement.class, statement);
                }
                return result;
            }
            roundTrips.increment();
            if (!isCaller()) {
                long start = System.nanoTime();
                try {
                    return call(delegate, method, args);
                } finally {
                    slowestBackgroundNanos.accumulate(System.nanoTime() - start);
                }
            }
            long start = System.nanoTime();
            try {
                return call(delegate, method, args);
            } finally {
                callerNanos.add(System.nanoTime() - start);
                callerRoundTrips.increment();
            }
        });
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
