package io.sluice.netty.transport;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.api.CorruptDataException;
import io.sluice.api.TransportException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.BufferTrace;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.gate.RemoteInputChannel;
import io.sluice.netty.gate.ConnectionId;
import io.sluice.netty.partition.FileSpan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client end of one connection: routes each decoded buffer to its remote input channel, sends the channels'
 * credit in batched {@link AddCredit} messages, and fails the channels on errors: one channel for a targeted
 * {@link ErrorResponse} or a {@link CorruptStoredBuffer}, every channel for a fatal one, a lost connection or a
 * pipeline exception.
 *
 * <p>Also the {@link NetworkBufferAllocator} of the connection's {@link ClientMessageDecoder}: data is decoded
 * straight into a buffer of the receiving channel.
 *
 * <p>Threads: the handler callbacks and the allocator run on the connection's event loop. Channels are added and
 * removed by consumer threads ({@code channels} is concurrent). Credit notifications from consumer and recycling
 * threads cross to the event loop through one lock-free queue and at most one pending task.
 */
public final class CreditBasedClientHandler extends ChannelInboundHandlerAdapter implements NetworkBufferAllocator {

    private static final Logger LOG = LoggerFactory.getLogger(CreditBasedClientHandler.class);

    private final ConnectionId connectionId;
    private final ConcurrentHashMap<InputChannelId, RemoteInputChannel> channels = new ConcurrentHashMap<>();

    private final ConcurrentLinkedQueue<RemoteInputChannel> creditNotifications = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean creditTaskScheduled = new AtomicBoolean();
    private final Runnable creditTask = this::drainCreditNotifications;
    /** Channels whose credit waits for the channel to be writable. */
    private final ArrayDeque<RemoteInputChannel> channelsWithCredit = new ArrayDeque<>(); // event loop
    /** Between a read's first channelRead and its channelReadComplete. Event loop. */
    private boolean reading; // event loop
    /** Credit queued during the current read, written and flushed once at its channelReadComplete. */
    private boolean creditQueuedInRead; // event loop
    /**
     * Channels this read made non-empty; their gates are told at its channelReadComplete (or before a failure is
     * reported), one wake-up of a consumer per read instead of one per buffer.
     */
    private final ArrayDeque<RemoteInputChannel> channelsToNotify = new ArrayDeque<>(); // event loop

    private volatile ChannelHandlerContext ctx;
    /**
     * The connection's first failure, set once by compare-and-set: every channel, including those added later, is
     * failed with this one cause, whichever thread reports a failure and however many do.
     */
    private final AtomicReference<Throwable> connectionError = new AtomicReference<>();

    public CreditBasedClientHandler(ConnectionId connectionId) {
        this.connectionId = connectionId;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** The connection this handler serves. */
    ConnectionId connectionId() {
        return connectionId;
    }

    /** Credit this connection's channels announced to the producer and still hold free buffers for. Any thread. */
    int creditOutstanding() {
        int sum = 0;
        for (RemoteInputChannel channel : channels.values()) {
            sum += channel.announcedCreditOnHand();
        }
        return sum;
    }

    /** Registers a channel before its partition request is sent. Any thread. */
    void addInputChannel(RemoteInputChannel channel) {
        channels.put(channel.inputChannelId(), channel);
        Throwable error = connectionError.get();
        if (error != null) {
            channel.onError(error);
        }
    }

    /** Forgets a channel. Any thread. */
    void removeInputChannel(RemoteInputChannel channel) {
        channels.remove(channel.inputChannelId(), channel);
    }

    /** Channels registered now. */
    int channelCount() {
        return channels.size();
    }

    /** A channel has credit to announce; many calls cause one event-loop task and one flush. Any thread. */
    void notifyCreditAvailable(RemoteInputChannel channel) {
        ChannelHandlerContext current = ctx;
        if (current != null && current.executor().inEventLoop() && reading) {
            // Granted by the event loop itself while it reads (floating buffers for a backlog): one flush at the
            // end of the read carries it, with every other credit of that read.
            queueCreditInRead(channel);
            return;
        }
        creditNotifications.add(channel);
        ChannelHandlerContext context = ctx;
        if (context != null && creditTaskScheduled.compareAndSet(false, true)) {
            context.executor().execute(creditTask);
        }
    }

    private void drainCreditNotifications() {
        creditTaskScheduled.set(false);
        RemoteInputChannel channel;
        while ((channel = creditNotifications.poll()) != null) {
            if (BufferTrace.ENABLED) {
                BufferTrace.record(BufferTrace.Hop.CREDIT_NOTIFY, channel.inputChannelId().hashCode(), -1, null);
            }
            channelsWithCredit.add(channel);
        }
        writeCredits();
    }

    /** Sends the pending credit while the connection is writable, then flushes once. Event loop. */
    private void writeCredits() {
        assert ctx.executor().inEventLoop();
        if (!ctx.channel().isActive()) {
            channelsWithCredit.clear();
            return;
        }
        boolean wrote = false;
        while (ctx.channel().isWritable()) {
            RemoteInputChannel channel = channelsWithCredit.poll();
            if (channel == null) {
                break;
            }
            if (channel.isReleased()) {
                continue;
            }
            int credit = channel.getAndResetUnannouncedCredit();
            if (credit > 0) {
                if (BufferTrace.ENABLED) {
                    BufferTrace.record(BufferTrace.Hop.CREDIT, channel.inputChannelId().hashCode(), credit, null);
                }
                ctx.write(new AddCredit(credit, channel.inputChannelId()))
                        .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
                wrote = true;
            }
        }
        if (wrote) {
            ctx.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            writeCredits();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        reading = true;
        if (msg instanceof BufferResponse response) {
            onBufferResponse(response);
        } else if (msg instanceof ErrorResponse error) {
            onErrorResponse(error);
        } else if (msg instanceof CorruptStoredBuffer corrupt) {
            onCorruptStoredBuffer(corrupt);
        } else {
            throw new IllegalStateException("unexpected message from " + connectionId + ": " + msg);
        }
    }

    private void onBufferResponse(BufferResponse response) {
        assert ctx.executor().inEventLoop();
        RemoteInputChannel channel = channels.get(response.receiverId());
        Buffer buffer = response.buffer();
        if (channel == null || channel.isReleased()) {
            // The channel has gone: drop the data and tell the server to stop sending it.
            if (buffer != null) {
                buffer.recycleBuffer();
            }
            ctx.writeAndFlush(new CancelPartitionRequest(response.receiverId()))
                    .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
            return;
        }
        if (buffer == null) {
            if (response.bufferSize() == 0) {
                channel.onEmptyBuffer(response.sequenceNumber(), response.backlog());
                pickUpDeferredCredit(channel);
            }
            // Otherwise the channel had no buffer for a data frame and was already failed by the allocator.
            return;
        }
        if (channel.receive(buffer, response.sequenceNumber(), response.backlog(),
                response.dataType().isPriority())) {
            // Told at this read's channelReadComplete (or at channelInactive / exceptionCaught when the read ends in
            // a close or a failure). A channel its consumer drained meanwhile may be queued twice; the gate queues a
            // channel once, so a second notification costs nothing.
            channelsToNotify.add(channel);
        }
        pickUpDeferredCredit(channel);
    }

    /**
     * Credit that recycling threads left to the event loop (RemoteInputChannel.DEFERRABLE_SENDER_CREDIT) goes out
     * with this read: the buffer just received is what the event loop looks at anyway. Event loop.
     */
    private void pickUpDeferredCredit(RemoteInputChannel channel) {
        if (channel.unannouncedCredit() > 0) {
            queueCreditInRead(channel);
        }
    }

    private void queueCreditInRead(RemoteInputChannel channel) {
        channelsWithCredit.add(channel);
        creditQueuedInRead = true;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        reading = false;
        notifyChannelsOfThisRead();
        if (creditQueuedInRead) {
            creditQueuedInRead = false;
            writeCredits();
        }
        super.channelReadComplete(ctx);
    }

    /** Tells the gates of the channels that this read made non-empty; their consumers wake now. Event loop. */
    private void notifyChannelsOfThisRead() {
        RemoteInputChannel channel;
        while ((channel = channelsToNotify.poll()) != null) {
            channel.notifyChannelNonEmpty();
        }
    }

    private void onErrorResponse(ErrorResponse error) {
        Throwable cause = error.toException(remoteAddress());
        if (error.isFatal()) {
            LOG.warn("{} reported a connection error: {}", connectionId, error.message());
            failAllChannels(new TransportException("the producer's server at " + remoteAddress() + " (producer "
                    + connectionId.producerId().value() + ") reported an error: " + error.message(), remoteAddress(),
                    cause));
            return;
        }
        RemoteInputChannel channel = channels.get(error.receiverId());
        if (channel == null) {
            LOG.debug("Error for an unknown or released receiver {} from {}: {}", error.receiverId(), connectionId,
                    error.message());
            return;
        }
        if (error.kind() == ErrorKind.PARTITION_NOT_FOUND) {
            channel.onFailedPartitionRequest();
        } else {
            channel.onError(cause);
        }
    }

    /**
     * A stored buffer sent from the producer's file arrived damaged (the decoder recycled it): its channel fails,
     * naming what the decoder could not know, the partition, subpartition and data file. Event loop.
     */
    private void onCorruptStoredBuffer(CorruptStoredBuffer corrupt) {
        RemoteInputChannel channel = channels.get(corrupt.receiverId());
        if (channel == null || channel.isReleased()) {
            LOG.debug("Damaged stored buffer for an unknown or released receiver {} from {}: {}",
                    corrupt.receiverId(), connectionId, corrupt.describe());
            return;
        }
        CorruptDataException failure = new CorruptDataException("subpartition " + channel.subpartitionIndex()
                + " of blocking partition " + channel.partitionId() + " is damaged at offset " + corrupt.offset()
                + " of its data file " + FileSpan.dataFileName(channel.partitionId()) + " at the producer "
                + remoteAddress() + ": " + corrupt.describe() + "; the partition must be produced again (read by "
                + channel.describe() + ")");
        LOG.warn("{}", failure.getMessage());
        channel.onError(failure);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        notifyChannelsOfThisRead();
        if (!channels.isEmpty()) {
            boolean nothingReceived = ConnectionTraffic.of(ctx.channel()).bytesRead() == 0;
            failAllChannels(new TransportException("connection to producer " + connectionId.producerId().value()
                    + " at " + remoteAddress() + " was closed" + (nothingReceived
                            ? " before the producer sent anything" : "") + " (connection "
                    + connectionId.connectionIndex() + "); " + (nothingReceived
                            ? TlsMismatch.closedBeforeAnything(ctx.channel()) : "the producer environment closed or died"),
                    remoteAddress()));
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        notifyChannelsOfThisRead();
        LOG.warn("Connection to {} failed: {}", connectionId, cause.toString());
        failAllChannels(cause instanceof TransportException ? cause : new TransportException("connection to producer "
                + connectionId.producerId().value() + " at " + remoteAddress() + " failed: " + cause, remoteAddress(),
                cause));
        ctx.close();
    }

    /**
     * Fails every channel of this connection, now and later, with the connection's first failure: when several
     * threads report failures at once, the first to arrive wins and a later {@code cause} is only logged. Any
     * thread.
     */
    void failAllChannels(Throwable cause) {
        if (!connectionError.compareAndSet(null, cause)) {
            LOG.debug("Connection to {} already failed; later failure not reported to its channels: {}",
                    connectionId, cause.toString());
        }
        Throwable first = connectionError.get();
        for (RemoteInputChannel channel : new ArrayList<>(channels.values())) {
            channel.onError(first);
        }
    }

    private SocketAddress remoteAddress() {
        ChannelHandlerContext context = ctx;
        SocketAddress remote = context == null ? null : context.channel().remoteAddress();
        return remote != null ? remote : connectionId.address();
    }

    // ------------------------------------------------------------------------------------------------------------
    // NetworkBufferAllocator (event loop)
    // ------------------------------------------------------------------------------------------------------------

    @Override
    public Buffer allocatePooledNetworkBuffer(InputChannelId receiverId) {
        RemoteInputChannel channel = channels.get(receiverId);
        if (channel == null || channel.isReleased()) {
            return null;
        }
        Buffer buffer = channel.requestBuffer();
        if (buffer == null && !channel.isReleased()) {
            channel.onError(new IllegalStateException("producer " + connectionId.producerId().value() + " at "
                    + remoteAddress() + " sent a buffer to channel " + channel.channelIndex()
                    + " that has no free buffer: the producer broke the credit contract"));
        }
        return buffer;
    }

    @Override
    public Buffer allocateUnPooledNetworkBuffer(int size, DataType dataType) {
        // Events are small and rare: plain heap memory outside the network budget, collected by the GC.
        return new Buffer(MemorySegment.wrap(new byte[size]), BufferRecycler.DISCARD, false, 0);
    }
}
