package io.sluice.netty.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;

import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * Local servers that close while a connection is being handed to them: the race behind the hang of
 * {@code ProducerEnvironmentClosedWhileConnectingTest}, made deterministic. Netty calls {@code newLocalChannel} on the
 * connecting channel's event loop after that channel found the server in the local registry; these close the server
 * there, and wait on the server's loop (another one) until its pipeline was emptied, so the accepted channel reaches
 * no acceptor. Test thread (binding).
 */
final class ServersClosingWhileAccepting {

    private ServersClosingWhileAccepting() {
    }

    /** Binds Netty's own local server, which drops the accepted channel, at the local address of {@code address}. */
    static void bindNettys(EventLoopGroup loop, InetSocketAddress address) throws InterruptedException {
        bind(loop, address, NettysClosingWhileAccepting::new);
    }

    /** Binds the transport's {@link LocalDataServerChannel}, which refuses it, at the local address of {@code address}. */
    static void bindDataServer(EventLoopGroup loop, InetSocketAddress address) throws InterruptedException {
        bind(loop, address, DataServerClosingWhileAccepting::new);
    }

    private static void bind(EventLoopGroup loop, InetSocketAddress address, Supplier<ServerChannel> server)
            throws InterruptedException {
        new ServerBootstrap().group(loop)
                .channelFactory(server::get)
                .childHandler(new ChannelInboundHandlerAdapter())
                .bind(ConnectionManager.localAddressOf(address)).sync();
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
