package io.vesta.test.lease;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on 127.0.0.1 between a store's clients and the store, for the faults of
 * {@link MachineIdLeaseContract} that a network makes: a stall (nothing passes either way until it ends, as on a
 * partitioned link) and lost replies (requests reach the store and are applied, the first reply of each connection is
 * dropped and the connection reset, as when the link breaks right after the store committed), and a cut (every
 * connection reset and new ones closed at once: one client partitioned from a store the others still reach).
 */
public final class TcpRelay implements AutoCloseable {

    private enum Mode { PASS, STALL, DROP_REPLIES }

    private final ServerSocket server;
    private final String host;
    private volatile int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile Mode mode = Mode.PASS;
    private volatile boolean cut;
    private volatile boolean closed;

    /** A relay to {@code host:port}, listening on a free port of 127.0.0.1. */
    public TcpRelay(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "tcp-relay-" + server.getLocalPort());
        accept.setDaemon(true);
        accept.start();
    }

    /** The port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** From now until the returned handle is closed, nothing passes either way; connections stay open. */
    public AutoCloseable stall() {
        mode = Mode.STALL;
        return () -> mode = Mode.PASS;
    }

    /**
     * From now until the returned handle is closed, requests pass, and the first reply of each connection is dropped
     * and the connection reset. Closing the handle resets every connection too, so no client reads a reply that
     * belongs to another request.
     */
    public AutoCloseable loseReplies() {
        mode = Mode.DROP_REPLIES;
        return () -> {
            mode = Mode.PASS;
            resetAll();
        };
    }

    /** Resets every connection and closes new ones at once until {@link #restore()}: the store is out of reach. */
    public void cut() {
        cut = true;
        resetAll();
    }

    /** Ends a {@link #cut()}: new connections reach the store again. */
    public void restore() {
        cut = false;
    }

    /**
     * Resets every connection and relays new ones to {@code port} of the same host, as a failover behind one address
     * does.
     */
    public void redirect(int port) {
        this.port = port;
        resetAll();
    }

    /** Resets every connection: the clients see their link break and connect again. */
    public void resetAll() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                if (cut) {
                    closeQuietly(client);
                    continue;
                }
                Socket store;
                try {
                    store = new Socket(host, port);
                } catch (IOException e) {
                    closeQuietly(client);
                    continue;
                }
                sockets.add(client);
                sockets.add(store);
                start(client, store, false);
                start(store, client, true);
            } catch (IOException e) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private void start(Socket from, Socket to, boolean replies) {
        Thread pump = new Thread(() -> pump(from, to, replies), "tcp-relay-pump");
        pump.setDaemon(true);
        pump.start();
    }

    private void pump(Socket from, Socket to, boolean replies) {
        byte[] buffer = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                while (mode == Mode.STALL && !closed) {
                    Thread.sleep(2);
                }
                if (replies && mode == Mode.DROP_REPLIES) {
                    break;
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the link broke: break the other side too
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        mode = Mode.PASS;
        server.close();
        resetAll();
    }
}
