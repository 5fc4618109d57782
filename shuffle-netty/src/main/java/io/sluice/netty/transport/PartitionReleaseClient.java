package io.sluice.netty.transport;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.netty.tls.TlsContexts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The shuffle master's line to producer environments: for {@code releasePartitionExternally}, it opens a short
 * connection to the producer's data port, sends {@link ReleasePartitions} and a {@link CloseRequest}, and is done when
 * the server closes the connection (the server handles the two in order, so by then it has released the
 * partitions). Under TLS the connection authenticates like any other (mutual TLS with the master's keystore and
 * truststore), so only a peer the environments trust can release their partitions.
 *
 * <p>One event loop thread ({@code sluice-master-release}), started at the first release; {@link #release} from any
 * thread; never blocks.
 */
public final class PartitionReleaseClient implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionReleaseClient.class);

    private final TransportType type;
    /** Null without TLS. */
    private final TlsContexts tls;
    private final Duration connectTimeout;
    /** How long the server may take to close the connection after the request was written. */
    private final Duration answerTimeout;

    private final Object lock = new Object();
    @GuardedBy("lock")
    private EventLoopGroup group;
    @GuardedBy("lock")
    private Bootstrap bootstrap;
    @GuardedBy("lock")
    private boolean closed;

    /**
     * @param transport      {@code shuffle.netty.transport} of the environments
     * @param tls            the environments' TLS (the master's own keystore and truststore), or null
     * @param connectTimeout {@code shuffle.netty.connect-timeout}
     * @param answerTimeout  how long to wait for the server to close the connection after the request
     */
    public PartitionReleaseClient(String transport, TlsContexts tls, Duration connectTimeout,
                                  Duration answerTimeout) {
        this.type = TransportType.fromOption(transport);
        this.tls = type == TransportType.LOCAL ? null : tls;
        this.connectTimeout = connectTimeout;
        this.answerTimeout = answerTimeout;
    }

    /**
     * Asks the environment serving data at {@code address} to release {@code partitionIds}.
     *
     * @return completes once the environment has handled the request, or exceptionally with a
     *         {@link ShuffleException} naming the address and the partitions
     */
    public CompletableFuture<Void> release(InetSocketAddress address, List<ResultPartitionId> partitionIds) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Bootstrap boot;
        synchronized (lock) {
            if (closed) {
                done.completeExceptionally(failure(address, partitionIds, "the shuffle master is closed", null));
                return done;
            }
            boot = bootstrapLocked();
        }
        SocketAddress remote = type == TransportType.LOCAL ? ConnectionManager.localAddressOf(address) : address;
        boot.connect(remote).addListener((ChannelFuture connected) -> {
            if (!connected.isSuccess()) {
                done.completeExceptionally(failure(address, partitionIds, "cannot connect", connected.cause()));
                return;
            }
            Channel channel = connected.channel();
            for (int from = 0; from < partitionIds.size(); from += ReleasePartitions.MAX_IDS) {
                List<ResultPartitionId> chunk = partitionIds.subList(from,
                        Math.min(partitionIds.size(), from + ReleasePartitions.MAX_IDS));
                channel.write(new ReleasePartitions(chunk), channel.voidPromise());
            }
            ChannelFuture sent = channel.writeAndFlush(new CloseRequest());
            sent.addListener((ChannelFuture written) -> {
                if (!written.isSuccess()) {
                    done.completeExceptionally(failure(address, partitionIds, "cannot send the request",
                            written.cause()));
                    channel.close();
                }
            });
            // The server closes the connection once it has handled both messages. A connection closed before the
            // request was written (a refused TLS handshake, say) failed above.
            channel.closeFuture().addListener(closedFuture -> {
                if (sent.isSuccess()) {
                    done.complete(null);
                } else {
                    done.completeExceptionally(failure(address, partitionIds, "the connection closed before the "
                            + "request was sent", sent.cause()));
                }
            });
            channel.eventLoop().schedule(() -> {
                if (!done.isDone()) {
                    done.completeExceptionally(failure(address, partitionIds, "the environment did not answer "
                            + "within " + answerTimeout.toMillis() + " ms", null));
                    channel.close();
                }
            }, answerTimeout.toMillis(), TimeUnit.MILLISECONDS);
        });
        return done;
    }

    @GuardedBy("lock")
    private Bootstrap bootstrapLocked() {
        if (bootstrap == null) {
            group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("sluice-master-release", true),
                    type.ioHandlerFactory());
            bootstrap = new Bootstrap()
                    .group(group)
                    .channel(type.clientChannelClass())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                            (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            if (type == TransportType.LOCAL) {
                                channel.pipeline().addLast(LocalConnectTimeout.NAME,
                                        new LocalConnectTimeout(connectTimeout));
                            }
                            if (tls != null) {
                                channel.pipeline().addLast("tls", tls.newClientHandler(channel.alloc()));
                            }
                            channel.pipeline().addLast("encoder", new NettyMessageEncoder())
                                    .addLast("discard", new DiscardInbound());
                        }
                    });
        }
        return bootstrap;
    }

    private static ShuffleException failure(InetSocketAddress address, List<ResultPartitionId> ids, String what,
                                            Throwable cause) {
        return new ShuffleException("cannot release partitions " + ids + " at the environment serving " + address
                + ": " + what + (cause == null ? "" : " (" + cause + ")") + "; its files stay until that environment "
                + "calls releasePartitionsLocally or closes", cause);
    }

    /** Stops the event loop; releases in flight fail. Idempotent. */
    @Override
    public void close() {
        EventLoopGroup toStop;
        synchronized (lock) {
            closed = true;
            toStop = group;
            group = null;
            bootstrap = null;
        }
        if (toStop != null) {
            toStop.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    /**
     * Drops whatever the server sends on a release connection (heartbeats, an error before it closes): the request
     * needs no answer but the close. Event loop of the channel.
     */
    private static final class DiscardInbound extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("Release connection to {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        }
    }
}
