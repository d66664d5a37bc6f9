package io.vesta.hibernate;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A connection pool that counts, per table, how INSERT statements reach the driver: rows added to JDBC batches,
 * batches executed, and statements executed one at a time. It connects eagerly, so a database that is not there
 * fails the context rather than skipping anything.
 */
final class CountingDataSource implements DataSource, AutoCloseable {

    private static final Pattern INSERT = Pattern.compile("(?is)^\\s*insert\\s+into\\s+([\\w.\"`]+).*");

    private final HikariDataSource pool;

    private final Map<String, Inserts> inserts = new ConcurrentHashMap<>();

    CountingDataSource(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(5_000);
        config.setInitializationFailTimeout(5_000);
        this.pool = new HikariDataSource(config);
    }

    /** What the driver saw of the inserts into {@code table}. */
    Inserts inserts(String table) {
        return inserts.computeIfAbsent(table.toLowerCase(Locale.ROOT), t -> new Inserts());
    }

    @Override
    public Connection getConnection() throws SQLException {
        return counting(pool.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return counting(pool.getConnection(username, password));
    }

    private Connection counting(Connection connection) {
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = forward(connection, method, args);
            if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
                Matcher insert = INSERT.matcher(sql);
                if (insert.matches()) {
                    return counting((PreparedStatement) result, inserts(table(insert.group(1))));
                }
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class }, handler);
    }

    private static PreparedStatement counting(PreparedStatement statement, Inserts inserts) {
        InvocationHandler handler = (proxy, method, args) -> {
            switch (method.getName()) {
                case "addBatch" -> inserts.rowsBatched.incrementAndGet();
                case "executeBatch" -> inserts.batches.incrementAndGet();
                case "execute", "executeUpdate", "executeQuery", "executeLargeUpdate" -> inserts.singles.incrementAndGet();
                default -> {
                }
            }
            return forward(statement, method, args);
        };
        return (PreparedStatement) Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(),
                new Class<?>[] { PreparedStatement.class }, handler);
    }

    private static String table(String qualified) {
        String name = qualified.replace("\"", "").replace("`", "");
        return name.substring(name.lastIndexOf('.') + 1);
    }

    private static Object forward(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public void close() {
        pool.close();
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger("io.vesta");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return pool.isWrapperFor(type);
    }

    /** Counts of the inserts into one table. */
    static final class Inserts {

        final AtomicInteger rowsBatched = new AtomicInteger();

        final AtomicInteger batches = new AtomicInteger();

        final AtomicInteger singles = new AtomicInteger();

        @Override
        public String toString() {
            return rowsBatched + " rows in " + batches + " batches, " + singles + " single statements";
        }
    }
}
