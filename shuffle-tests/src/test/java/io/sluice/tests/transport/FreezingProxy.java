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
import java.util.concurrent.CountDownLatch;

/**
 * A TCP proxy on loopback that forwards both ways until {@link #freeze()}, and from then on forwards nothing while
 * keeping every socket open: to the two ends it looks like a peer that died without closing (power loss, a cut
 * cable). Threads: one accepting, two pumps per connection, all daemons, all ended by {@link #close()}.
 */
final class FreezingProxy implements AutoCloseable {

    private static final int CHUNK = 16 * 1024;

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new ArrayList<>(); // guarded by itself
    private final List<Thread> threads = new ArrayList<>(); // guarded by sockets
    private volatile boolean frozen;
    /** Counted down once by {@link #close()}; a frozen pump waits on it (nothing unfreezes a proxy). */
    private final CountDownLatch closing = new CountDownLatch(1);

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
        while (!isClosed()) {
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
            while (!isClosed()) {
                if (frozen) {
                    // Neither read nor write until the proxy closes: the kernel buffers fill, the ends see silence.
                    closing.await();
                    return;
                }
                int read = in.read(chunk);
                if (read < 0) {
                    to.shutdownOutput();
                    return;
                }
                if (frozen) {
                    closing.await(); // the chunk read just before the freeze is never forwarded
                    return;
                }
                out.write(chunk, 0, read);
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

    private boolean isClosed() {
        return closing.getCount() == 0;
    }

    @Override
    public void close() throws Exception {
        closing.countDown();
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
