package io.sluice.netty.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.sluice.api.ShuffleOptions;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Fails a local-transport connect that has not completed within {@code shuffle.netty.connect-timeout} and closes its
 * channel, as Netty's socket channels do for {@code CONNECT_TIMEOUT_MILLIS}; Netty's local channel has no such
 * timeout. Without it a connect can wait forever: when a producer's data server closes after a consumer's channel
 * found it in the local registry but before it accepted the connection, the accepted channel reaches the closed
 * server's emptied pipeline, is dropped, and nothing ever completes the consumer's connect (found by
 * {@code ProducerEnvironmentClosedWhileConnectingTest}).
 *
 * <p>First in a local client channel's pipeline; leaves the pipeline once the connect completed either way. Event
 * loop of the channel.
 */
final class LocalConnectTimeout extends ChannelOutboundHandlerAdapter {

    static final String NAME = "connect-timeout";

    private final Duration timeout;

    /** @param timeout {@code shuffle.netty.connect-timeout} */
    LocalConnectTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
                        ChannelPromise promise) {
        long millis = timeout.toMillis();
        Future<?> expiry = ctx.executor().schedule(() -> {
            ConnectTimeoutException timedOut = new ConnectTimeoutException("connection to " + remoteAddress
                    + " (local transport) was not established within " + millis + " ms; the producer's "
                    + "environment may be closing, or raise " + ShuffleOptions.NETTY_CONNECT_TIMEOUT.key());
            if (promise.tryFailure(timedOut)) {
                ctx.channel().close();
            }
        }, millis, TimeUnit.MILLISECONDS);
        promise.addListener(done -> {
            expiry.cancel(false);
            if (ctx.pipeline().context(this) != null) {
                ctx.pipeline().remove(this);
            }
        });
        ctx.connect(remoteAddress, localAddress, promise);
    }
}
