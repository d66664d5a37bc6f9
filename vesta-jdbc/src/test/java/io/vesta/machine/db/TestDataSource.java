package io.vesta.machine.db;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * The database seam the tests control: a DataSource over a JDBC URL that can be switched down (every
 * {@code getConnection} fails), a small pool that bounds how many physical connections are open at once
 * (PostgreSQL allows 100) and reuses them, as an application's pool would.
 * In {@code single} mode it hands out one physical connection again and again, like a pool of one, so a test
 * can break that connection on the server and see the provider hit a real driver error.
 *
 * <p>A {@link #stall(StallPoint) stall} makes every {@code getConnection}, or every statement execution, hang
 * until the test lets it go, ignoring interrupts: a JDBC call stuck on a partitioned network, which neither a
 * pool's timeout nor a query timeout (sent over that same network) ends. Every statement executed through
 * the source is recorded with the query timeout it carried. A {@link #beforeExecuting hook} runs before the
 * statements whose SQL matches, so that a test can put another node's write between two of the provider's.
 */
final class TestDataSource implements DataSource {

    private final String url;
    private final boolean single;
    private final Semaphore permits;
    private final AtomicInteger opened = new AtomicInteger();
    private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
    private volatile boolean down;
    private volatile Stall stall;
    private volatile Predicate<String> hookedSql = sql -> false;
    private volatile Runnable hook = () -> { };
    private final ConcurrentLinkedQueue<Executed> executed = new ConcurrentLinkedQueue<>();
    private Connection cached;

    private TestDataSource(String url, boolean single, int maxOpen) {
        this.url = url;
        this.single = single;
        this.permits = new Semaphore(maxOpen);
    }

    /** A pool of at most {@code maxOpen} physical connections. */
    static TestDataSource pooled(String url, int maxOpen) {
        return new TestDataSource(url, false, maxOpen);
    }

    /** One physical connection, reopened only when it is closed and the database is not switched down. */
    static TestDataSource single(String url) {
        return new TestDataSource(url, true, 1);
    }

    void down(boolean down) {
        this.down = down;
    }

    /** Where a stall holds its callers. */
    enum StallPoint { CONNECTION, STATEMENT }

    /** One statement execution: its SQL and the query timeout (seconds, 0 for none) set on it then. */
    record Executed(String sql, int queryTimeoutSeconds) {
    }

    /** From now on, every call at {@code point} hangs until {@link Stall#release()}. */
    Stall stall(StallPoint point) {
        Stall stall = new Stall(point);
        this.stall = stall;
        return stall;
    }

    /** From now on, runs {@code hook} on the executing thread just before each statement whose SQL matches. */
    void beforeExecuting(Predicate<String> sql, Runnable hook) {
        this.hook = hook;
        this.hookedSql = sql;
    }

    /** Every statement executed so far, in order. */
    List<Executed> executed() {
        return List.copyOf(executed);
    }

    /** A hang at one point of the JDBC API, let go by the test. */
    static final class Stall {

        private final StallPoint point;
        private final CountDownLatch open = new CountDownLatch(1);
        private final CountDownLatch blocked = new CountDownLatch(1);

        private Stall(StallPoint point) {
            this.point = point;
        }

        /** Waits until some caller hangs in the stall. */
        boolean awaitBlocked(Duration timeout) throws InterruptedException {
            return blocked.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** Lets every caller through, now and from now on. */
        void release() {
            open.countDown();
        }

        private void hold(StallPoint at) {
            if (at != point) {
                return;
            }
            blocked.countDown();
            // A driver blocked in a socket read does not notice an interrupt; neither does this.
            boolean interrupted = false;
            while (true) {
                try {
                    open.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void hold(StallPoint at) {
        Stall current = stall;
        if (current != null) {
            current.hold(at);
        }
    }

    /** Closes the physical connections not in use; call when the test is done. */
    synchronized void close() throws SQLException {
        for (Connection connection; (connection = idle.poll()) != null; ) {
            connection.close();
        }
        if (cached != null) {
            cached.close();
        }
    }

    /** How many physical connections were opened so far. */
    int opened() {
        return opened.get();
    }

    /** The connection a single-mode source hands out, opening it if needed. */
    synchronized Connection physical() throws SQLException {
        getConnection();
        return cached;
    }

    @Override
    public Connection getConnection() throws SQLException {
        hold(StallPoint.CONNECTION);
        if (single) {
            synchronized (this) {
                // While switched down a broken connection is handed out as it is, so the provider meets the
                // driver's own error; once up again it is replaced, as a pool's validation would.
                if (cached == null || cached.isClosed() || (!down && !cached.isValid(2))) {
                    refuseIfDown();
                    cached = DriverManager.getConnection(url);
                    opened.incrementAndGet();
                }
                return wrap(cached, () -> { });
            }
        }
        refuseIfDown();
        permits.acquireUninterruptibly();
        try {
            Connection pooled = idle.poll();
            Connection connection = pooled != null ? pooled : DriverManager.getConnection(url);
            if (pooled == null) {
                opened.incrementAndGet();
            }
            AtomicBoolean released = new AtomicBoolean();
            return wrap(connection, () -> {
                if (released.compareAndSet(false, true)) {
                    if (connection.getAutoCommit()) {
                        idle.add(connection);
                    } else {
                        connection.close();
                    }
                    permits.release();
                }
            });
        } catch (SQLException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    private void refuseIfDown() throws SQLException {
        if (down) {
            throw new SQLTransientConnectionException("test: the database is switched down", "08001");
        }
    }

    private interface Closer {
        void close() throws SQLException;
    }

    private Connection wrap(Connection connection, Closer closer) {
        return (Connection) Proxy.newProxyInstance(TestDataSource.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("close") && method.getParameterCount() == 0) {
                        closer.close();
                        return null;
                    }
                    Object result = invoke(connection, method, args);
                    if (result instanceof PreparedStatement statement && method.getName().equals("prepareStatement")) {
                        return watch(statement, PreparedStatement.class, (String) args[0]);
                    }
                    if (result instanceof Statement statement && method.getName().equals("createStatement")) {
                        return watch(statement, Statement.class, null);
                    }
                    return result;
                });
    }

    /** Records each execution with the timeout the statement carries at that moment, and stalls it if asked. */
    private <S extends Statement> S watch(S statement, Class<S> type, String preparedSql) {
        return type.cast(Proxy.newProxyInstance(TestDataSource.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> {
                    if (method.getName().startsWith("execute")) {
                        String sql = preparedSql != null ? preparedSql : args != null && args.length > 0 ? String.valueOf(args[0]) : "?";
                        executed.add(new Executed(sql.strip(), statement.getQueryTimeout()));
                        if (hookedSql.test(sql)) {
                            hook.run();
                        }
                        hold(StallPoint.STATEMENT);
                    }
                    return invoke(statement, method, args);
                }));
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the URL carries the credentials");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
