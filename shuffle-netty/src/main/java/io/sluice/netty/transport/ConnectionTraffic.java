package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.sluice.api.ConnectionMetrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;

/**
 * Counts one connection's bytes each way and, on the server side, the credit its receivers granted that the
 * server has not used yet: the figures of {@link ConnectionMetrics}. Sits in the pipeline right after TLS (when
 * there is TLS), so it counts protocol frames, headers included, before encryption.
 *
 * <p>Threads: the counters are written by the connection's event loop only, with opaque stores (plain stores on
 * common hardware, no fence): one per message read or written, one per credit change. {@link #metrics()} reads
 * them from any thread without a lock.
 */
final class ConnectionTraffic extends ChannelDuplexHandler {

    /** The handler's name in the pipeline. */
    static final String NAME = "traffic";

    private static final VarHandle BYTES_READ;
    private static final VarHandle BYTES_WRITTEN;
    private static final VarHandle CREDIT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            BYTES_READ = lookup.findVarHandle(ConnectionTraffic.class, "bytesRead", long.class);
            BYTES_WRITTEN = lookup.findVarHandle(ConnectionTraffic.class, "bytesWritten", long.class);
            CREDIT = lookup.findVarHandle(ConnectionTraffic.class, "credit", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ConnectionMetrics.Direction direction;
    @SuppressWarnings("unused") // through BYTES_READ; event loop
    private long bytesRead;
    @SuppressWarnings("unused") // through BYTES_WRITTEN; event loop
    private long bytesWritten;
    /** Server side: credit of the connection's readers, not used yet. Event loop. */
    @SuppressWarnings("unused") // through CREDIT
    private int credit;

    ConnectionTraffic(ConnectionMetrics.Direction direction) {
        this.direction = direction;
    }

    /** The counter of {@code channel}, or a detached one when its pipeline has none (a handler under test). */
    static ConnectionTraffic of(Channel channel) {
        ConnectionTraffic traffic = channel.pipeline().get(ConnectionTraffic.class);
        return traffic != null ? traffic : new ConnectionTraffic(ConnectionMetrics.Direction.INCOMING);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        long size = sizeOf(msg);
        if (size > 0) {
            BYTES_READ.setOpaque(this, (long) BYTES_READ.getOpaque(this) + size);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        long size = sizeOf(msg);
        if (size > 0) {
            BYTES_WRITTEN.setOpaque(this, (long) BYTES_WRITTEN.getOpaque(this) + size);
        }
        ctx.write(msg, promise);
    }

    /** Bytes received on this connection so far. Any thread. */
    long bytesRead() {
        return (long) BYTES_READ.getOpaque(this);
    }

    /** The server's readers on this connection gained ({@code delta > 0}) or used credit. Event loop. */
    void addCredit(int delta) {
        CREDIT.setOpaque(this, (int) CREDIT.getOpaque(this) + delta);
    }

    private static long sizeOf(Object msg) {
        if (msg instanceof ByteBuf buf) {
            return buf.readableBytes();
        }
        if (msg instanceof ByteBufHolder holder) {
            return holder.content().readableBytes();
        }
        if (msg instanceof FileRegion region) {
            return region.count();
        }
        return 0;
    }

    /**
     * The connection's figures now. Any thread.
     *
     * @param channel      the connection
     * @param remote       the peer's address to report
     * @param clientCredit for an outgoing connection, the credit its channels announced and still hold free
     */
    ConnectionMetrics metrics(Channel channel, SocketAddress remote, int clientCredit) {
        ConnectionMetrics.State state = !channel.isActive() ? ConnectionMetrics.State.CLOSED
                : channel.isWritable() ? ConnectionMetrics.State.ACTIVE : ConnectionMetrics.State.UNWRITABLE;
        int outstanding = direction == ConnectionMetrics.Direction.INCOMING
                ? Math.max(0, (int) CREDIT.getOpaque(this)) : clientCredit;
        return new ConnectionMetrics(remote, direction, state, outstanding,
                (long) BYTES_WRITTEN.getOpaque(this), (long) BYTES_READ.getOpaque(this));
    }
}
