package io.vesta.test;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * The database seam a test controls: a DataSource that injects the faults a store meets in production and records
 * every statement run through it.
 *
 * <ul>
 *   <li>{@link #down(boolean) Down}: every {@code getConnection} fails, as when the server or the network is gone.
 *   <li>{@link #stall(StallPoint) Stalls}: {@code getConnection}, or the execution of (matching) statements, hangs
 *       until the test lets it go, ignoring interrupts: a JDBC call stuck on a partitioned network, which neither
 *       a pool's timeout nor a query timeout (sent over that same network) ends.
 *   <li>{@link #failStatements Failing statements}: statements whose SQL matches fail before they reach the
 *       database.
 *   <li>{@link #beforeStatement Hooks}: code run just before a matching statement executes, to line two nodes up
 *       at the same point (between a takeover's SELECT and its UPDATE, say).
 *   <li>{@link #loseCommitReply Lost replies}: a matching statement's write commits, then the call that committed
 *       it throws and the connection is gone, so the caller cannot know the write happened.
 *   <li>{@link #executed() Counting}: every statement execution, in order, with the query timeout it carried.
 * </ul>
 *
 * <p>Connections come from one of three places: a small pool of its own over a JDBC URL ({@link #pooled}), one
 * physical connection handed out again and again ({@link #single}, so a test can kill that session on the server),
 * or another DataSource such as the application's pool ({@link #over}).
 */
public final class FaultyDataSource implements DataSource, AutoCloseable {

    /** The message of the exception {@code getConnection} throws while the source is {@link #down(boolean) down}. */
    public static final String DOWN_MESSAGE = "Connection refused: database switched off by the test";

    /** The message of the exception thrown after a commit whose reply was {@link #loseCommitReply lost}. */
    public static final String LOST_REPLY_MESSAGE = "test: the connection broke after the commit was sent; the write"
            + " committed";

    /** How long a stall holds a caller at most, so that a failed test never leaves threads parked for good. */
    public static final Duration STALL_LIMIT = Duration.ofMinutes(1);

    /** Where a stall holds its callers. */
    public enum StallPoint {
        /** {@code getConnection}. */
        CONNECTION,
        /** The execution of a statement ({@code execute}, {@code executeQuery}, {@code executeUpdate}, batches). */
        STATEMENT
    }

    /**
     * One statement execution: its SQL (stripped; a plain statement's batch joined by {@code ";\n"}) and the query
     * timeout, in seconds, set on the statement then (0 for none).
     */
    public record Executed(String sql, int queryTimeoutSeconds) {
    }

    /** Code run before a matching statement executes; what it throws, the execution throws. */
    @FunctionalInterface
    public interface StatementHook {

        /** Runs before the statement with this SQL executes. */
        void run(String sql) throws SQLException;
    }

    private final String url;
    private final DataSource delegate;
    private final boolean single;
    private final Semaphore permits;
    private final AtomicInteger opened = new AtomicInteger();
    private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Executed> executed = new ConcurrentLinkedQueue<>();
    private final List<Stall> stalls = new CopyOnWriteArrayList<>();
    private final List<Fault> faults = new CopyOnWriteArrayList<>();
    private volatile boolean down;
    private Connection cached;

    private FaultyDataSource(String url, DataSource delegate, boolean single, int maxOpen) {
        this.url = url;
        this.delegate = delegate;
        this.single = single;
        this.permits = new Semaphore(maxOpen);
    }

    /**
     * A pool of its own of at most {@code maxOpen} physical connections on {@code url}, reused as an application's
     * pool reuses them (PostgreSQL allows 100 at once). A connection given back outside auto-commit is closed.
     */
    public static FaultyDataSource pooled(String url, int maxOpen) {
        if (maxOpen < 1) {
            throw new IllegalArgumentException("maxOpen must be at least 1, was " + maxOpen);
        }
        return new FaultyDataSource(Objects.requireNonNull(url, "url"), null, false, maxOpen);
    }

    /**
     * One physical connection on {@code url}, handed out again and again like a pool of one, reopened only when it
     * is closed or broken and the source is not down: a test can kill its session ({@link #physical()},
     * {@link TestDatabase#killSession}) and see the code under test meet the driver's own error.
     */
    public static FaultyDataSource single(String url) {
        return new FaultyDataSource(Objects.requireNonNull(url, "url"), null, true, 1);
    }

    /** Faults on the connections of {@code delegate}, such as a connection pool; {@link #close()} leaves it open. */
    public static FaultyDataSource over(DataSource delegate) {
        return new FaultyDataSource(null, Objects.requireNonNull(delegate, "delegate"), false, Integer.MAX_VALUE);
    }

    /** Switches the database off ({@code getConnection} fails with {@link #DOWN_MESSAGE}) or on again. */
    public void down(boolean down) {
        this.down = down;
    }

    /** From now on, every call at {@code point} hangs until {@link Stall#release()}. */
    public Stall stall(StallPoint point) {
        return addStall(new Stall(point, sql -> true));
    }

    /** From now on, every execution of a statement whose SQL matches hangs until {@link Stall#release()}. */
    public Stall stallStatements(Predicate<String> sql) {
        return addStall(new Stall(StallPoint.STATEMENT, Objects.requireNonNull(sql, "sql")));
    }

    private Stall addStall(Stall stall) {
        stalls.add(stall);
        return stall;
    }

    /**
     * From now on, statements whose SQL matches fail before they reach the database, with a
     * {@link SQLTransientConnectionException} (SQL state 08006) naming the statement.
     */
    public Fault failStatements(Predicate<String> sql) {
        return failStatements(sql, statement -> new SQLTransientConnectionException(
                "test: the statement failed on the way to the database: " + statement, "08006"));
    }

    /** From now on, statements whose SQL matches fail before they reach the database, with the exception given. */
    public Fault failStatements(Predicate<String> sql, Function<String, ? extends SQLException> failure) {
        Objects.requireNonNull(failure, "failure");
        return addFault(new Fault(sql, Fault.Kind.FAIL, statement -> {
            throw failure.apply(statement);
        }));
    }

    /**
     * From now on, {@code hook} runs on the executing thread just before each statement whose SQL matches
     * executes (after its earlier statements, in the same transaction, have run).
     */
    public Fault beforeStatement(Predicate<String> sql, StatementHook hook) {
        return addFault(new Fault(sql, Fault.Kind.HOOK, Objects.requireNonNull(hook, "hook")));
    }

    /**
     * From now on, the reply to the commit of a statement whose SQL matches is lost: the statement runs, its
     * transaction commits (at once in auto-commit, else at {@code commit()}), then that call throws a
     * {@link SQLNonTransientConnectionException} (SQL state 08006, {@link #LOST_REPLY_MESSAGE}) and the
     * physical connection is closed, as when the network drops after the server committed.
     */
    public Fault loseCommitReply(Predicate<String> sql) {
        return addFault(new Fault(sql, Fault.Kind.LOSE_REPLY, null));
    }

    private Fault addFault(Fault fault) {
        faults.add(fault);
        fault.owner = faults;
        return fault;
    }

    /** Every statement executed so far, in order. */
    public List<Executed> executed() {
        return List.copyOf(executed);
    }

    /** How many statements whose SQL matches were executed so far. */
    public long count(Predicate<String> sql) {
        return executed.stream().filter(e -> sql.test(e.sql())).count();
    }

    /** How many physical connections were opened ({@link #pooled}, {@link #single}) or taken ({@link #over}). */
    public int opened() {
        return opened.get();
    }

    /** The connection a {@link #single} source hands out, opening it if needed: the one to kill on the server. */
    public synchronized Connection physical() throws SQLException {
        if (!single) {
            throw new IllegalStateException("only a single-connection source has one physical connection");
        }
        getConnection();
        return cached;
    }

    /**
     * Lets every stall go and closes the physical connections it opened that are not in use; call when the test
     * is done. A source {@link #over} another leaves that one open.
     */
    @Override
    public synchronized void close() throws SQLException {
        stalls.forEach(Stall::release);
        for (Connection connection; (connection = idle.poll()) != null; ) {
            connection.close();
        }
        if (cached != null) {
            cached.close();
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        hold(StallPoint.CONNECTION, null);
        if (single) {
            synchronized (this) {
                // While switched down a broken connection is handed out as it is, so the code under test meets the
                // driver's own error; once up again it is replaced, as a pool's validation would.
                if (cached == null || cached.isClosed() || (!down && !cached.isValid(2))) {
                    refuseIfDown();
                    cached = DriverManager.getConnection(url);
                    opened.incrementAndGet();
                }
                Connection physical = cached;
                return wrap(physical, () -> { });
            }
        }
        refuseIfDown();
        if (delegate != null) {
            Connection connection = delegate.getConnection();
            opened.incrementAndGet();
            return wrap(connection, connection::close);
        }
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
                    try {
                        if (!connection.isClosed() && connection.getAutoCommit()) {
                            idle.add(connection);
                        } else {
                            connection.close();
                        }
                    } finally {
                        permits.release();
                    }
                }
            });
        } catch (SQLException | RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    private void refuseIfDown() throws SQLException {
        if (down) {
            throw new SQLTransientConnectionException(DOWN_MESSAGE, "08001");
        }
    }

    private void hold(StallPoint at, String sql) {
        for (Stall stall : stalls) {
            stall.hold(at, sql);
        }
    }

    private interface Closer {
        void close() throws SQLException;
    }

    /** What one connection handed out knows: whether a commit's reply is to be lost. */
    private static final class Session {
        volatile boolean loseNextCommitReply;
    }

    private Connection wrap(Connection connection, Closer closer) {
        Session session = new Session();
        return (Connection) Proxy.newProxyInstance(FaultyDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "close" -> {
                            if (method.getParameterCount() == 0) {
                                closer.close();
                                return null;
                            }
                        }
                        case "equals" -> {
                            return proxy == args[0];
                        }
                        case "hashCode" -> {
                            return System.identityHashCode(proxy);
                        }
                        case "commit" -> {
                            invoke(connection, method, args);
                            if (session.loseNextCommitReply) {
                                session.loseNextCommitReply = false;
                                throw loseReply(connection);
                            }
                            return null;
                        }
                        case "rollback" -> session.loseNextCommitReply = false;
                        default -> {
                        }
                    }
                    Object result = invoke(connection, method, args);
                    if (result instanceof CallableStatement statement && method.getName().equals("prepareCall")) {
                        return watch(statement, CallableStatement.class, (String) args[0], connection, session);
                    }
                    if (result instanceof PreparedStatement statement && method.getName().equals("prepareStatement")) {
                        return watch(statement, PreparedStatement.class, (String) args[0], connection, session);
                    }
                    if (result instanceof Statement statement && method.getName().equals("createStatement")) {
                        return watch(statement, Statement.class, null, connection, session);
                    }
                    return result;
                });
    }

    private static SQLException loseReply(Connection connection) {
        SQLException lost = new SQLNonTransientConnectionException(LOST_REPLY_MESSAGE, "08006");
        try {
            connection.close();
        } catch (SQLException e) {
            lost.addSuppressed(e);
        }
        return lost;
    }

    /** Records, hooks, fails, stalls and loses replies of each execution of {@code statement}. */
    private <S extends Statement> S watch(S statement, Class<S> type, String preparedSql, Connection connection,
            Session session) {
        List<String> batch = new ArrayList<>();
        return type.cast(Proxy.newProxyInstance(FaultyDataSource.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> {
                    String name = method.getName();
                    if (name.equals("equals")) {
                        return proxy == args[0];
                    }
                    if (name.equals("hashCode")) {
                        return System.identityHashCode(proxy);
                    }
                    if (preparedSql == null && name.equals("addBatch") && args[0] instanceof String sql) {
                        batch.add(sql.strip());
                    }
                    if (preparedSql == null && name.equals("clearBatch")) {
                        batch.clear();
                    }
                    if (!name.startsWith("execute")) {
                        return invoke(statement, method, args);
                    }
                    String sql = preparedSql != null ? preparedSql
                            : args != null && args.length > 0 && args[0] instanceof String given ? given
                            : String.join(";\n", batch);
                    sql = sql.strip();
                    if (preparedSql == null && name.endsWith("Batch")) {
                        batch.clear();
                    }
                    executed.add(new Executed(sql, statement.getQueryTimeout()));
                    boolean loseReply = false;
                    for (Fault fault : faults) {
                        if (fault.kind != Fault.Kind.LOSE_REPLY && fault.take(sql)) {
                            fault.action.run(sql);
                        }
                    }
                    hold(StallPoint.STATEMENT, sql);
                    Object result = invoke(statement, method, args);
                    for (Fault fault : faults) {
                        if (fault.kind == Fault.Kind.LOSE_REPLY && fault.take(sql)) {
                            loseReply = true;
                        }
                    }
                    if (loseReply) {
                        if (connection.getAutoCommit()) {
                            throw loseReply(connection);
                        }
                        session.loseNextCommitReply = true;
                    }
                    return result;
                }));
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
        throw new SQLFeatureNotSupportedException("the test source connects with the credentials it was made with");
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate != null ? delegate.getLogWriter() : null;
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        if (delegate != null) {
            delegate.setLogWriter(out);
        }
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        if (delegate != null) {
            delegate.setLoginTimeout(seconds);
        }
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate != null ? delegate.getLoginTimeout() : 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        if (delegate != null) {
            return delegate.getParentLogger();
        }
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (delegate != null) {
            return delegate.unwrap(iface);
        }
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return delegate != null && delegate.isWrapperFor(iface);
    }

    /** A hang at one point of the JDBC API, let go by the test. */
    public static final class Stall {

        private final StallPoint point;
        private final Predicate<String> statements;
        private final CountDownLatch open = new CountDownLatch(1);
        private final CountDownLatch blocked = new CountDownLatch(1);
        private final AtomicInteger waiting = new AtomicInteger();
        private volatile String lastBlockedThread;

        private Stall(StallPoint point, Predicate<String> statements) {
            this.point = point;
            this.statements = statements;
        }

        /** Waits until some caller hangs in the stall; whether one did within {@code timeout}. */
        public boolean awaitBlocked(Duration timeout) throws InterruptedException {
            return blocked.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** How many callers hang in the stall now. */
        public int blocked() {
            return waiting.get();
        }

        /** The name of the thread that last came to hang in the stall, or null. */
        public String lastBlockedThread() {
            return lastBlockedThread;
        }

        /** Lets every caller through, now and from now on. */
        public void release() {
            open.countDown();
        }

        private void hold(StallPoint at, String sql) {
            if (at != point || open.getCount() == 0 || (sql != null && !statements.test(sql))) {
                return;
            }
            lastBlockedThread = Thread.currentThread().getName();
            waiting.incrementAndGet();
            blocked.countDown();
            // A driver blocked in a socket read does not notice an interrupt; neither does this.
            boolean interrupted = false;
            long deadline = System.nanoTime() + STALL_LIMIT.toNanos();
            try {
                while (true) {
                    try {
                        open.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                waiting.decrementAndGet();
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * A fault on the statements whose SQL matches, active until {@link #remove() removed} or until it has acted
     * the number of {@link #times(int) times} it was limited to.
     */
    public static final class Fault {

        private enum Kind { FAIL, HOOK, LOSE_REPLY }

        private final Predicate<String> statements;
        private final Kind kind;
        private final StatementHook action;
        private final AtomicInteger remaining = new AtomicInteger(Integer.MAX_VALUE);
        private final AtomicInteger fired = new AtomicInteger();
        private volatile List<Fault> owner;

        private Fault(Predicate<String> statements, Kind kind, StatementHook action) {
            this.statements = Objects.requireNonNull(statements, "sql");
            this.kind = kind;
            this.action = action;
        }

        /**
         * Limits the fault to its next {@code times} matching statements; call it before those can run.
         *
         * @return this fault
         */
        public Fault times(int times) {
            if (times < 1) {
                throw new IllegalArgumentException("times must be at least 1, was " + times);
            }
            remaining.set(times);
            return this;
        }

        /** How many statements it acted on so far. */
        public int fired() {
            return fired.get();
        }

        /** Ends the fault: statements from now on run as they would. */
        public void remove() {
            List<Fault> list = owner;
            if (list != null) {
                list.remove(this);
            }
        }

        private boolean take(String sql) {
            if (!statements.test(sql)) {
                return false;
            }
            for (int left = remaining.get(); left > 0; left = remaining.get()) {
                if (remaining.compareAndSet(left, left == Integer.MAX_VALUE ? left : left - 1)) {
                    fired.incrementAndGet();
                    return true;
                }
            }
            return false;
        }
    }
}
