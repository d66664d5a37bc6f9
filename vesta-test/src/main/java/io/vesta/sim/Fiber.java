package io.vesta.sim;

import java.util.concurrent.Semaphore;

/**
 * A thread that runs a node's calls into the engine one at a time, under the {@link Scheduler}'s control: the engine
 * calls its store synchronously, so a store call that takes virtual time must block a real thread, and that thread
 * {@link #park parks} while the rest of the simulation runs. Control passes by hand: {@link #start} and {@link #resume}
 * run the fiber until it parks or its task ends, and only then return, so exactly one thread runs at a time and a run
 * is deterministic.
 */
public final class Fiber implements AutoCloseable {

    /** Thrown out of {@link #park} when the fiber is closed while parked: a crashed node's call never returns. */
    static final class Abandoned extends Error {
        Abandoned() {
            super("the node crashed", null, false, false);
        }
    }

    private static final ThreadLocal<Fiber> CURRENT = new ThreadLocal<>();

    private final Thread thread;
    private final Semaphore go = new Semaphore(0);
    private final Semaphore back = new Semaphore(0);
    private final Object owner;
    private Runnable task;
    private boolean busy;
    private boolean stopped;
    private Throwable failure;

    /**
     * @param name  the thread's name
     * @param owner what the fiber runs for (a node's run), for {@link #owner()}
     */
    public Fiber(String name, Object owner) {
        this.owner = owner;
        this.thread = new Thread(this::loop, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** The fiber the calling thread is, or null. */
    public static Fiber current() {
        return CURRENT.get();
    }

    public Object owner() {
        return owner;
    }

    /** Whether a task is running or parked. */
    public boolean busy() {
        return busy;
    }

    /** Runs {@code task} on the fiber until it parks or ends; rethrows what an ended task threw, but Abandoned. */
    public void start(Runnable task) {
        if (busy || stopped) {
            throw new IllegalStateException("fiber " + thread.getName() + (stopped ? " was closed" : " is busy"));
        }
        busy = true;
        this.task = task;
        resume();
    }

    /** Lets a parked fiber go on until it parks again or its task ends. */
    public void resume() {
        go.release();
        back.acquireUninterruptibly();
        Throwable thrown = failure;
        failure = null;
        if (thrown instanceof RuntimeException e) {
            throw e;
        }
        if (thrown instanceof Error e) {
            throw e;
        }
    }

    /** On the fiber: hands control back to the scheduler until {@link #resume} is called. */
    public void park() {
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("only the fiber parks itself");
        }
        back.release();
        go.acquireUninterruptibly();
        if (stopped) {
            throw new Abandoned();
        }
    }

    private void loop() {
        CURRENT.set(this);
        for (;;) {
            go.acquireUninterruptibly();
            if (stopped) {
                back.release();
                return;
            }
            try {
                task.run();
            } catch (Abandoned e) {
                busy = false;
                task = null;
                back.release();
                return;
            } catch (Throwable e) {
                failure = e;
            }
            busy = false;
            task = null;
            back.release();
        }
    }

    /** Ends the fiber; a task parked in it never returns (its node crashed). */
    @Override
    public void close() {
        if (stopped) {
            return;
        }
        stopped = true;
        go.release();
        back.acquireUninterruptibly();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
