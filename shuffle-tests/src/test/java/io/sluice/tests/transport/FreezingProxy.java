package io.sluice.tests.transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP proxy on loopback that forwards both ways until {@link #freeze()}, and from then on forwards nothing while
 * keeping every socket open: to the two ends it looks like a peer that died without closing (power loss, a cut
 * cable). Threads: one accepting, two pumps per connection, all daemons, all ended by {@link #close()}.
 */
final class FreezingProxy implements AutoCloseable {

    private static final int CHUNK = 16 * 1024;
    private static final long FROZEN_POLL_MILLIS = 20;

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new ArrayList<>(); // guarded by itself
    private final List<Thread> threads = new ArrayList<>(); // guarded by sockets
    private volatile boolean frozen;
    private volatile boolean closed;

    private FreezingProxy(ServerSocket server, InetSocketAddress target) {
        this.server = server;
        this.target = target;
    }

    /** Listens on a free loopback port and forwards each connection to {@code target}. */
    static FreezingProxy start(InetSocketAddress target) throws IOException {
        FreezingProxy proxy = new FreezingProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), target);
        proxy.spawn("proxy-accept", proxy::acceptLoop);
        return proxy;
    }

    /** Where clients connect. */
    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    /** From now on no byte is forwarded in either direction; the sockets stay open. */
    void freeze() {
        frozen = true;
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(target.getAddress(), target.getPort());
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(upstream);
                }
                spawn("proxy-up", () -> pump(client, upstream));
                spawn("proxy-down", () -> pump(upstream, client));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] chunk = new byte[CHUNK];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            while (!closed) {
                if (frozen) {
                    // Neither read nor write: the kernel buffers fill and the ends see silence.
                    Thread.sleep(FROZEN_POLL_MILLIS);
                    continue;
                }
                int read = in.read(chunk);
                if (read < 0) {
                    to.shutdownOutput();
                    return;
                }
                while (frozen && !closed) {
                    Thread.sleep(FROZEN_POLL_MILLIS);
                }
                if (!closed) {
                    out.write(chunk, 0, read);
                }
            }
        } catch (IOException | InterruptedException e) {
            // The proxy closed, or an end went away.
        }
    }

    private void spawn(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        synchronized (sockets) {
            threads.add(thread);
        }
        thread.start();
    }

    @Override
    public void close() throws Exception {
        closed = true;
        server.close();
        List<Thread> toJoin;
        synchronized (sockets) {
            for (Socket socket : sockets) {
                socket.close();
            }
            toJoin = new ArrayList<>(threads);
        }
        for (Thread thread : toJoin) {
            thread.join(5_000);
        }
    }
}
