package io.vesta.test.lease;

import io.vesta.EmbeddedIdService;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Issues IDs on a thread of its own until closed, keeping every one, for the restart tests of a store: a refusal (the
 * lease not held, the clock not yet past the mark) waits a millisecond.
 */
public final class Issuer implements AutoCloseable {

    private final Set<Long> ids = new HashSet<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    public Issuer(EmbeddedIdService service, String name) {
        thread = new Thread(() -> {
            while (!stop.get()) {
                try {
                    long id = service.genId();
                    synchronized (ids) {
                        ids.add(id);
                    }
                } catch (IllegalStateException refused) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException interrupted) {
                        return;
                    }
                }
            }
        }, "issuer-" + name);
        thread.start();
    }

    /** Every ID issued so far. */
    public Set<Long> ids() {
        synchronized (ids) {
            return new HashSet<>(ids);
        }
    }

    public int count() {
        synchronized (ids) {
            return ids.size();
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join(10_000);
    }
}
