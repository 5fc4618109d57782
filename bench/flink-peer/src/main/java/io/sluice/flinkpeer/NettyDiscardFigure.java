package io.sluice.flinkpeer;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * What the socket allows: raw Netty (the version Sluice uses) over loopback, one event-loop thread per side, the
 * sender writing 32 KiB direct buffers (retained slices of one filled buffer: no copy in user space) for as long as
 * the channel is writable, then flushing; the receiver counting and releasing. Prints
 * {@code netty.nio.discard.32k GBps=... buffers_per_s=... cpu_cores=...} (or {@code netty.epoll...}).
 */
final class NettyDiscardFigure {

    private NettyDiscardFigure() {
    }

    static void run(String transport, Timing timing) throws Exception {
        boolean epoll = switch (transport) {
            case "epoll" -> true;
            case "nio" -> false;
            default -> throw new IllegalArgumentException("transport '" + transport + "' is not nio or epoll");
        };
        if (epoll && !Epoll.isAvailable()) {
            System.out.println("# netty.epoll.discard.32k unavailable: " + Epoll.unavailabilityCause());
            return;
        }
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> serverType = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        Class<? extends Channel> clientType = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
        EventLoopGroup receiverLoop = new MultiThreadIoEventLoopGroup(1, io);
        EventLoopGroup senderLoop = new MultiThreadIoEventLoopGroup(1, io);
        ByteBufAllocator allocator = PooledByteBufAllocator.DEFAULT;
        Tally received = new Tally(); // owned by the receiver's event loop
        try {
            Channel server = new ServerBootstrap()
                    .group(receiverLoop)
                    .channel(serverType)
                    .childOption(ChannelOption.ALLOCATOR, allocator)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            channel.pipeline().addLast(new Discard(received));
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            ByteBuf block = allocator.directBuffer(Timing.SEGMENT_BYTES, Timing.SEGMENT_BYTES);
            for (int i = 0; i < Timing.SEGMENT_BYTES; i++) {
                block.writeByte(i * 31);
            }
            new Bootstrap()
                    .group(senderLoop)
                    .channel(clientType)
                    .option(ChannelOption.ALLOCATOR, allocator)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new Pump(block))
                    .connect(server.localAddress()).sync();
            Window window = Window.measure(List.of(received), timing.warmupSeconds, timing.measureSeconds);
            FigureLine.named("netty." + transport + ".discard.32k")
                    .with("GBps", window.bytesPerSecond() / 1e9, 3)
                    .with("buffers_per_s", window.bytesPerSecond() / Timing.SEGMENT_BYTES, 0)
                    .with("cpu_cores", window.cpuCores, 2)
                    .print();
        } finally {
            senderLoop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
            receiverLoop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Receiver: counts and releases what arrives. Runs on the receiver's event loop. */
    private static final class Discard extends ChannelInboundHandlerAdapter {
        private final Tally received;

        Discard(Tally received) {
            this.received = received;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object message) {
            ByteBuf bytes = (ByteBuf) message;
            received.add(bytes.readableBytes(), 0);
            bytes.release();
        }
    }

    /** Sender: fills the outbound buffer while the channel is writable. Runs on the sender's event loop. */
    private static final class Pump extends ChannelInboundHandlerAdapter {
        private final ByteBuf block;

        Pump(ByteBuf block) {
            this.block = block;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            fill(ctx.channel());
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            fill(ctx.channel());
        }

        private void fill(Channel channel) {
            while (channel.isWritable()) {
                channel.write(block.retainedSlice(), channel.voidPromise());
            }
            channel.flush();
        }
    }
}
