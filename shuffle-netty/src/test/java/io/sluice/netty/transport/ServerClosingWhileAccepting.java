package io.sluice.netty.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A local server, on an event loop of its own, that closes while a connection is being handed to it: the race behind
 * the hang of {@code ProducerEnvironmentClosedWhileConnectingTest}, made deterministic. Netty calls
 * {@code newLocalChannel} on the connecting channel's event loop after that channel found the server in the local
 * registry; the server closes there, and waits on its own loop (another one) until its pipeline was emptied, so the
 * accepted channel reaches no acceptor. Test thread (creating, closing).
 */
final class ServerClosingWhileAccepting implements AutoCloseable {

    private final EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());

    private ServerClosingWhileAccepting() {
    }

    /** Netty's own local server, which drops the accepted channel, bound at the local address of {@code address}. */
    static ServerClosingWhileAccepting nettys(InetSocketAddress address) throws InterruptedException {
        return bound(address, NettysClosingWhileAccepting::new);
    }

    /** The transport's {@link LocalDataServerChannel}, which refuses it, bound at the local address of {@code address}. */
    static ServerClosingWhileAccepting dataServer(InetSocketAddress address) throws InterruptedException {
        return bound(address, DataServerClosingWhileAccepting::new);
    }

    private static ServerClosingWhileAccepting bound(InetSocketAddress address, Supplier<ServerChannel> server)
            throws InterruptedException {
        ServerClosingWhileAccepting closing = new ServerClosingWhileAccepting();
        try {
            new ServerBootstrap().group(closing.loop)
                    .channelFactory(server::get)
                    .childHandler(new ChannelInboundHandlerAdapter())
                    .bind(ConnectionManager.localAddressOf(address)).sync();
        } catch (InterruptedException | RuntimeException e) {
            closing.close();
            throw e;
        }
        return closing;
    }

    /** Stops the server's event loop. */
    @Override
    public void close() throws InterruptedException {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }

    private static void closeWhileAccepting(LocalServerChannel server) {
        server.close().syncUninterruptibly();
        // Closing queued the deregistration, which empties the pipeline: a task queued now runs after it.
        server.eventLoop().submit(() -> { }).syncUninterruptibly();
    }

    private static final class NettysClosingWhileAccepting extends LocalServerChannel {
        @Override
        protected LocalChannel newLocalChannel(LocalChannel peer) {
            closeWhileAccepting(this);
            return super.newLocalChannel(peer);
        }
    }

    private static final class DataServerClosingWhileAccepting extends LocalDataServerChannel {
        @Override
        protected LocalChannel newLocalChannel(LocalChannel peer) {
            closeWhileAccepting(this);
            return super.newLocalChannel(peer);
        }
    }
}
