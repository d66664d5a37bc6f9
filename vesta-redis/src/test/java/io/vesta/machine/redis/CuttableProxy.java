package io.vesta.machine.redis;

import io.lettuce.core.RedisURI;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on 127.0.0.1 between one node and Redis, which the test can cut (every connection dropped, new ones
 * closed at once) and restore: one node partitioned from Redis while the others still reach it.
 */
final class CuttableProxy implements AutoCloseable {

    private final ServerSocket listener;
    private volatile int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean cut;
    private volatile boolean closed;

    CuttableProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    RedisURI uri() {
        return RedisURI.create("redis://127.0.0.1:" + listener.getLocalPort());
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                if (cut) {
                    client.close();
                    continue;
                }
                Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                // the listener closed, or the target refused: the client sees its connection fail
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                }
            } catch (IOException e) {
                // cut or closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /** Drops every connection and refuses new ones until {@link #restore()}. */
    void cut() {
        cut = true;
        sockets.forEach(CuttableProxy::closeQuietly);
        sockets.clear();
    }

    void restore() {
        cut = false;
    }

    /** Drops every connection and relays new ones to the server on {@code port}, as a failover behind one address does. */
    void redirect(int port) {
        targetPort = port;
        sockets.forEach(CuttableProxy::closeQuietly);
        sockets.clear();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        cut();
        listener.close();
    }
}
