package io.sluice.netty.transport;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.TransportException;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Keeps one connection honest in both directions, on both ends:
 * <ul>
 *   <li>sends a {@link Heartbeat} when nothing else was written for {@code interval}, so that the peer sees frames
 *       however long the data takes (a slow producer is not a dead one);</li>
 *   <li>fails the connection when no complete frame arrived for {@code timeout}: a peer that died without closing
 *       its socket (power loss, network cut), a connection that stalls, or one that drips a partial frame to hold the
 *       server's memory. The failure is a {@link TransportException} naming the peer, fired into the pipeline: the
 *       client handler fails every channel of the connection with it, the server handler releases the connection's
 *       readers; both then close the connection.</li>
 * </ul>
 * It sits behind the frame decoder, so "a frame arrived" means a whole decoded message, not a few bytes. Heartbeats
 * it receives are consumed here.
 *
 * <p>The hot path only sets a flag per message; a check on the event loop every {@code tick} (half the interval, at
 * most a quarter of the timeout) turns the flags into times. A heartbeat is skipped while the connection is not
 * writable: bytes are queued anyway, and the peer will see them once it reads.
 *
 * <p>One instance per connection; every method runs on the connection's event loop.
 */
final class HeartbeatHandler extends ChannelDuplexHandler {

    private final long intervalNanos;
    private final long timeoutNanos;
    private final long tickNanos;
    /** Who is at the other end, for the failure message ("producer env-0", "consumer"). */
    private final String peerRole;

    private ScheduledFuture<?> ticker; // event loop
    private boolean frameReceivedSinceTick; // event loop
    private boolean wroteSinceTick; // event loop
    private long lastFrameNanos; // event loop
    private long lastWriteNanos; // event loop
    private boolean timedOut; // event loop

    /**
     * @param interval quiet time after which a heartbeat is sent
     * @param timeout  time without a complete incoming frame after which the connection fails; longer than interval
     * @param peerRole the peer, for messages
     */
    HeartbeatHandler(Duration interval, Duration timeout, String peerRole) {
        this.intervalNanos = interval.toNanos();
        this.timeoutNanos = timeout.toNanos();
        this.tickNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(intervalNanos / 2, timeoutNanos / 4));
        this.peerRole = peerRole;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start(ctx);
        super.channelActive(ctx);
    }

    private void start(ChannelHandlerContext ctx) {
        if (ticker != null) {
            return;
        }
        long now = ctx.executor().ticker().nanoTime();
        lastFrameNanos = now;
        lastWriteNanos = now;
        ticker = ctx.executor().scheduleAtFixedRate(() -> tick(ctx), tickNanos, tickNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    private void stop() {
        if (ticker != null) {
            ticker.cancel(false);
            ticker = null;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        frameReceivedSinceTick = true;
        if (msg instanceof Heartbeat) {
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        wroteSinceTick = true;
        ctx.write(msg, promise);
    }

    private void tick(ChannelHandlerContext ctx) {
        assert ctx.executor().inEventLoop();
        if (!ctx.channel().isActive() || timedOut) {
            return;
        }
        long now = ctx.executor().ticker().nanoTime();
        if (frameReceivedSinceTick) {
            frameReceivedSinceTick = false;
            lastFrameNanos = now;
        } else if (now - lastFrameNanos >= timeoutNanos) {
            timedOut = true;
            stop();
            ctx.fireExceptionCaught(new TransportException("no complete frame from " + peerRole + " at "
                    + ctx.channel().remoteAddress() + " for " + TimeUnit.NANOSECONDS.toMillis(now - lastFrameNanos)
                    + " ms (" + ShuffleOptions.NETTY_HEARTBEAT_TIMEOUT.key() + " = "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms): the peer is dead, unreachable or "
                    + "stalled; closing the connection", ctx.channel().remoteAddress()));
            return;
        }
        if (wroteSinceTick) {
            wroteSinceTick = false;
            lastWriteNanos = now;
        } else if (now - lastWriteNanos >= intervalNanos - tickNanos / 2 && ctx.channel().isWritable()) {
            lastWriteNanos = now;
            ctx.writeAndFlush(Heartbeat.INSTANCE).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        }
    }
}
