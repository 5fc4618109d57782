package io.sluice.netty.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.ssl.SslHandler;
import io.sluice.api.TransportException;
import io.sluice.netty.gate.ConnectionId;
import io.sluice.netty.gate.ProducerConnections;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * Hands out one {@link PartitionRequestClient} per {@link ConnectionId}: created once even when many channels ask
 * at the same moment (they wait for the same connect), never cached when the connect fails, and replaced once the
 * connection is closing or closed.
 *
 * <p>Any thread. {@link #createPartitionRequestClient} blocks the calling consumer thread for at most the connect
 * timeout; it is never called on an event loop.
 */
public final class PartitionRequestClientFactory implements ProducerConnections {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionRequestClientFactory.class);

    private final Bootstrap bootstrap;
    private final Function<ConnectionId, SocketAddress> remoteAddressOf;
    private final ConcurrentHashMap<ConnectionId, CompletableFuture<PartitionRequestClient>> clients =
            new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param bootstrap       a configured client bootstrap; its handler is replaced per connection
     * @param remoteAddressOf where to connect for an id (the TCP address, or a local-transport address)
     */
    PartitionRequestClientFactory(Bootstrap bootstrap, Function<ConnectionId, SocketAddress> remoteAddressOf) {
        this.bootstrap = bootstrap;
        this.remoteAddressOf = remoteAddressOf;
    }

    /**
     * The client of {@code connectionId}, connecting if there is none; the caller holds one reference and gives it
     * back with {@link PartitionRequestClient#close}.
     *
     * @throws TransportException when the connection cannot be opened (the next call tries again)
     */
    @Override
    public PartitionRequestClient createPartitionRequestClient(ConnectionId connectionId)
            throws IOException, InterruptedException {
        while (true) {
            if (closed) {
                throw new TransportException("cannot connect to " + connectionId + ": the environment is closed",
                        connectionId.address());
            }
            CompletableFuture<PartitionRequestClient> mine = new CompletableFuture<>();
            CompletableFuture<PartitionRequestClient> existing = clients.putIfAbsent(connectionId, mine);
            CompletableFuture<PartitionRequestClient> future = existing != null ? existing : mine;
            if (existing == null) {
                connect(connectionId, mine);
            }
            PartitionRequestClient client;
            try {
                client = future.get();
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof IOException io) {
                    throw io;
                }
                throw new TransportException("cannot connect to " + connectionId + ": " + cause,
                        connectionId.address(), cause);
            }
            if (client.acquire()) {
                return client;
            }
            // Closing or closed: forget it and connect anew.
            clients.remove(connectionId, future);
        }
    }

    private void connect(ConnectionId connectionId, CompletableFuture<PartitionRequestClient> result) {
        CreditBasedClientHandler handler = new CreditBasedClientHandler(connectionId);
        SocketAddress remote = remoteAddressOf.apply(connectionId);
        ChannelFuture connect;
        try {
            connect = bootstrap.clone().attr(ConnectionManager.CLIENT_HANDLER, handler).connect(remote);
        } catch (RuntimeException e) {
            clients.remove(connectionId, result);
            result.completeExceptionally(new TransportException("cannot connect to " + connectionId + ": " + e,
                    connectionId.address(), e));
            return;
        }
        connect.addListener((ChannelFutureListener) future -> {
            if (!future.isSuccess()) {
                // Never cache a failed connect: the next request tries again.
                clients.remove(connectionId, result);
                result.completeExceptionally(new TransportException("cannot connect to " + connectionId + ": "
                        + future.cause(), connectionId.address(), future.cause()));
                return;
            }
            Channel channel = future.channel();
            channel.closeFuture().addListener(closed -> clients.remove(connectionId, result));
            SslHandler tls = channel.pipeline().get(SslHandler.class);
            if (tls == null) {
                onConnected(connectionId, channel, handler, result);
                return;
            }
            // With TLS the connection is usable once the producer accepted our certificate and we accepted its.
            tls.handshakeFuture().addListener(handshake -> {
                if (handshake.isSuccess()) {
                    LOG.info("Connected to {} with {} {}", connectionId, tls.engine().getSession().getProtocol(),
                            tls.engine().getSession().getCipherSuite());
                    onConnected(connectionId, channel, handler, result);
                    return;
                }
                clients.remove(connectionId, result);
                channel.close();
                result.completeExceptionally(new TransportException("TLS handshake with " + connectionId
                        + " failed: " + TlsMismatch.handshakeFailed(handshake.cause()), connectionId.address(),
                        handshake.cause()));
            });
        });
    }

    private void onConnected(ConnectionId connectionId, Channel channel, CreditBasedClientHandler handler,
                             CompletableFuture<PartitionRequestClient> result) {
        PartitionRequestClient client = new PartitionRequestClient(channel, handler, connectionId, this);
        LOG.debug("Connected to {} on {}", connectionId, channel);
        if (!result.complete(client)) {
            client.closeNow(); // the factory closed while connecting: nobody will use this connection
        }
    }

    /** The client is closing: the next request for its id connects anew. */
    void onClientClosing(PartitionRequestClient client) {
        CompletableFuture<PartitionRequestClient> future = clients.get(client.connectionId());
        if (future != null && future.isDone() && !future.isCompletedExceptionally() && future.getNow(null) == client) {
            clients.remove(client.connectionId(), future);
        }
    }

    /**
     * Closes every connection; later requests fail, and so do the requests waiting for a connection still being
     * opened (its connect may never complete once the event loops stop, and a caller would wait for ever).
     */
    void close() {
        closed = true;
        List<Map.Entry<ConnectionId, CompletableFuture<PartitionRequestClient>>> all =
                new ArrayList<>(clients.entrySet());
        clients.clear();
        for (Map.Entry<ConnectionId, CompletableFuture<PartitionRequestClient>> entry : all) {
            CompletableFuture<PartitionRequestClient> future = entry.getValue();
            if (future.completeExceptionally(new TransportException("cannot connect to " + entry.getKey()
                    + ": the environment was closed while connecting", entry.getKey().address()))) {
                continue;
            }
            PartitionRequestClient client = future.isCompletedExceptionally() ? null : future.getNow(null);
            if (client != null) {
                client.closeNow();
            }
        }
    }
}
