package io.vesta.segment;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * The tests' seam between the service and a real pool: it can make the database unreachable (every new
 * connection fails, as when the server or the network is down), hold connections back until released (a slow
 * database), and run a hook before each statement is prepared (to line up two nodes at the same point).
 */
final class SwitchableDataSource implements DataSource {

    static final String DOWN_MESSAGE = "Connection refused: database switched off by the test";

    private final DataSource delegate;
    private volatile boolean down;
    private volatile CountDownLatch gate;
    private volatile Consumer<String> beforePrepare;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger held = new AtomicInteger();
    private volatile String lastHeldThread;

    SwitchableDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    void down(boolean down) {
        this.down = down;
    }

    /** From now on, a connection is handed out only after {@link #release()} (or after 10 s). */
    void hold() {
        gate = new CountDownLatch(1);
    }

    void release() {
        CountDownLatch current = gate;
        gate = null;
        if (current != null) {
            current.countDown();
        }
    }

    void beforePrepare(Consumer<String> hook) {
        this.beforePrepare = hook;
    }

    int connections() {
        return connections.get();
    }

    /** How many connection requests are waiting at the gate. */
    int held() {
        return held.get();
    }

    String lastHeldThread() {
        return lastHeldThread;
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (down) {
            throw new SQLException(DOWN_MESSAGE, "08001");
        }
        CountDownLatch current = gate;
        if (current != null) {
            held.incrementAndGet();
            lastHeldThread = Thread.currentThread().getName();
            try {
                current.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SQLException("interrupted at the test gate", e);
            } finally {
                held.decrementAndGet();
            }
            if (down) {
                throw new SQLException(DOWN_MESSAGE, "08001");
            }
        }
        connections.incrementAndGet();
        Connection connection = delegate.getConnection();
        Consumer<String> hook = beforePrepare;
        return hook == null ? connection : hooked(connection, hook);
    }

    private static Connection hooked(Connection connection, Consumer<String> hook) {
        return (Connection) Proxy.newProxyInstance(SwitchableDataSource.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
                        hook.accept(sql);
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("the tests use the pool's credentials");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return delegate.isWrapperFor(iface);
    }
}
