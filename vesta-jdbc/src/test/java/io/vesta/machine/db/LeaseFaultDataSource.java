package io.vesta.machine.db;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLRecoverableException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Logger;

/**
 * The database faults of the lease contract, over a pool: a stall (every connection, statement and commit hangs,
 * ignoring interrupts, as a JDBC call on a partitioned network does) and lost replies (a commit, or a statement run in
 * auto-commit, is applied and then fails as if the link broke before the answer came back).
 */
final class LeaseFaultDataSource implements DataSource {

    private final TestDataSource pool;
    private volatile CountDownLatch stalled;
    private volatile boolean loseReplies;

    LeaseFaultDataSource(TestDataSource pool) {
        this.pool = pool;
    }

    AutoCloseable stall() {
        CountDownLatch latch = new CountDownLatch(1);
        stalled = latch;
        return () -> {
            stalled = null;
            latch.countDown();
        };
    }

    AutoCloseable loseReplies() {
        loseReplies = true;
        return () -> loseReplies = false;
    }

    private void hold() {
        CountDownLatch latch = stalled;
        if (latch == null) {
            return;
        }
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        hold();
        Connection connection = pool.getConnection();
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("commit")) {
                        hold();
                        invoke(connection, method, args);
                        lostReply();
                        return null;
                    }
                    Object result = invoke(connection, method, args);
                    if (result instanceof Statement statement) {
                        return statement(statement, connection, method.getReturnType());
                    }
                    return result;
                });
    }

    private Object statement(Statement statement, Connection connection, Class<?> type) {
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            boolean executes = method.getName().startsWith("execute");
            if (executes) {
                hold();
            }
            Object result = invoke(statement, method, args);
            if (executes && connection.getAutoCommit() && !method.getName().equals("executeQuery")) {
                lostReply();
            }
            return result;
        });
    }

    private void lostReply() throws SQLException {
        if (loseReplies) {
            throw new SQLRecoverableException("test: the write was applied and its reply lost", "08006");
        }
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException();
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
