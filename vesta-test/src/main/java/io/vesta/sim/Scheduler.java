package io.vesta.sim;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Virtual time and the one queue of everything that happens in a simulation, drawn from one seeded random source: the
 * same seed runs the same events in the same order at the same virtual times. Events run one at a time on the thread
 * that calls {@link #runUntil}; an event that hands control to a {@link Fiber} waits until the fiber parks or ends, so
 * that exactly one thread runs at any moment.
 */
public final class Scheduler {

    private record Event(long time, long order, Runnable action) {
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>(
            Comparator.comparingLong(Event::time).thenComparingLong(Event::order));
    private final SplittableRandom random;
    private long now;
    private long order;
    private long events;

    /**
     * @param seed  the seed of every random choice of the run
     * @param start the virtual time the run starts at (Unix ms, the true time the nodes' clocks deviate from)
     */
    public Scheduler(long seed, long start) {
        this.random = new SplittableRandom(seed);
        this.now = start;
    }

    /** The true virtual time, Unix ms. */
    public long now() {
        return now;
    }

    /** The run's one random source; only ever drawn from by the thread that runs now. */
    public SplittableRandom random() {
        return random;
    }

    /** Runs {@code action} at virtual time {@code time} (now, if that has passed), after what is due before it. */
    public void at(long time, Runnable action) {
        queue.add(new Event(Math.max(time, now), order++, action));
    }

    /** Runs {@code action} {@code delay} ms from now. */
    public void after(long delay, Runnable action) {
        at(now + delay, action);
    }

    /** Runs every event due up to {@code end}, in order of time and then of scheduling, and moves the time to it. */
    public void runUntil(long end) {
        while (!queue.isEmpty() && queue.peek().time() <= end) {
            Event event = queue.poll();
            now = event.time();
            events++;
            event.action().run();
        }
        now = Math.max(now, end);
    }

    /** How many events have run. */
    public long events() {
        return events;
    }

    /** A uniformly drawn long in {@code [min, max]}. */
    public long between(long min, long max) {
        return min >= max ? min : random.nextLong(min, max + 1);
    }

    /** True with probability {@code p}. */
    public boolean chance(double p) {
        return random.nextDouble() < p;
    }
}
