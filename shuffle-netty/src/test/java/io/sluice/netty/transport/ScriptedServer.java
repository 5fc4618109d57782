package io.sluice.netty.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.sluice.netty.gate.RemoteChannels;
import io.sluice.netty.gate.ConnectionId;
import io.sluice.testing.Await;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Stands in for a producer environment's data server on Netty's local transport, where the client of a
 * local-transport {@link ConnectionManager} dials for {@link #dataAddress()}: it records every message clients send
 * and lets the test answer, or hang up.
 *
 * <p>Any thread; the test waits for what the server received with {@link #next(Class)}.
 */
final class ScriptedServer implements AutoCloseable {

    /** Ports standing for scripted servers; far from those the connection managers pick. */
    private static final AtomicInteger PORTS = new AtomicInteger(45_000);

    private final InetSocketAddress dataAddress;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
    private final BlockingQueue<NettyMessage> received = new LinkedBlockingQueue<>();
    private final BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
    private final AtomicInteger connections = new AtomicInteger();

    /** A server at {@code dataAddress} (see {@link #freeAddress()}). */
    ScriptedServer(InetSocketAddress dataAddress) {
        this.dataAddress = dataAddress;
        new ServerBootstrap()
                .group(group)
                .channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        connections.incrementAndGet();
                        accepted.add(channel);
                        channel.pipeline().addLast(new ServerMessageDecoder(1 << 20), new NettyMessageEncoder(),
                                new Recorder());
                    }
                })
                .bind(ConnectionManager.localAddressOf(dataAddress)).syncUninterruptibly();
    }

    /** A server at a fresh address. */
    ScriptedServer() {
        this(freeAddress());
    }

    /** An address no server listens at yet. */
    static InetSocketAddress freeAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), PORTS.incrementAndGet());
    }

    InetSocketAddress dataAddress() {
        return dataAddress;
    }

    /** The connection of index {@code index} to this server, of producer {@link RemoteChannels#PRODUCER}. */
    ConnectionId connectionId(int index) {
        return new ConnectionId(dataAddress, index, RemoteChannels.PRODUCER);
    }

    /** Connections accepted so far. */
    int acceptedConnections() {
        return connections.get();
    }

    /** The next connection accepted (in order); fails after {@link Await#EVENTUALLY}. */
    Channel nextConnection() throws InterruptedException {
        Channel channel = accepted.poll(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(channel, "no connection within " + Await.EVENTUALLY.toSeconds() + " s");
        return channel;
    }

    /** The next message a client sent, which must be a {@code type}; fails after {@link Await#EVENTUALLY}. */
    <T extends NettyMessage> T next(Class<T> type) throws InterruptedException {
        NettyMessage message = received.poll(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(message, "no " + type.getSimpleName() + " within " + Await.EVENTUALLY.toSeconds() + " s");
        return assertInstanceOf(type, message);
    }

    /** Sends {@code message} to the client on {@code connection} and waits until it is written. */
    void send(Channel connection, NettyMessage message) {
        connection.writeAndFlush(message).syncUninterruptibly();
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Queues what clients send. Event loop. */
    private final class Recorder extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            received.add((NettyMessage) msg);
        }
    }
}
