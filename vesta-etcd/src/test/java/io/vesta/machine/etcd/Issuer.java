package io.vesta.machine.etcd;

import io.vesta.EmbeddedIdService;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/** Issues IDs on a thread of its own until closed, keeping every one; a refusal (no lease, clock not past the mark) waits 1 ms. */
final class Issuer implements AutoCloseable {

    private final Set<Long> ids = new HashSet<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;

    Issuer(EmbeddedIdService service, String name) {
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

    Set<Long> ids() {
        synchronized (ids) {
            return new HashSet<>(ids);
        }
    }

    int count() {
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
