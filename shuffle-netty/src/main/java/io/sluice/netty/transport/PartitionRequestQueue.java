package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferTrace;
import io.sluice.netty.compression.BufferCompressor;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.BufferAndBacklog;
import io.sluice.netty.partition.FileSpan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The send side of one server connection: the readers of that connection, and the queue of those that have both
 * something to send and the credit for it (events need none). While the channel is writable it takes one buffer
 * from the head reader, writes it, puts the reader back at the tail if it can send more, and flushes once at the
 * end of the pass; when the channel turns writable again, it goes on. What a read of the connection brings (credit,
 * resumed consumption) only queues readers; the pass for all of it runs once, at the read's channelReadComplete, so
 * a client's write of many channels' credit costs one pass and one flush (one {@code writev}), not one per message.
 *
 * <p>Threads: everything runs on the connection's event loop, except {@link #notifyReaderNonEmpty}, which producer
 * threads call. Those notifications cross over through one lock-free queue and at most one pending event-loop
 * task, however many producers notify: many notifications, one task, one flush.
 */
final class PartitionRequestQueue extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionRequestQueue.class);

    private final TransportMetrics metrics;
    /** Compresses data buffers before they are sent (shuffle.compression.codec=lz4), or null. */
    private final BufferCompressor compressor;
    /** Whether blocking partitions' data may go from the file to the socket (TCP, no compression). */
    private final boolean fileRegions;

    /** Readers with something to send now, each at most once. */
    private final ArrayDeque<CreditBasedViewReader> availableReaders = new ArrayDeque<>(); // event loop
    private final Map<InputChannelId, CreditBasedViewReader> allReaders = new HashMap<>(); // event loop

    /** Readers notified by producer threads, waiting for the event loop. */
    private final ConcurrentLinkedQueue<CreditBasedViewReader> notifiedReaders = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drainNotifications;

    /** A message of the current read queued a reader: the write pass runs at its channelReadComplete. Event loop. */
    private boolean writeAtReadComplete;

    private ChannelHandlerContext ctx; // set once in handlerAdded
    private ServerReadThrottle readThrottle; // set once in handlerAdded
    private ConnectionTraffic traffic; // set once in handlerAdded

    PartitionRequestQueue(TransportMetrics metrics) {
        this(metrics, null, false);
    }

    /**
     * @param compressor  lz4 for data buffers, or null to send them as they are
     * @param fileRegions whether file bytes may be written to this connection as FileRegions (a TCP connection
     *                    without compression or TLS)
     */
    PartitionRequestQueue(TransportMetrics metrics, BufferCompressor compressor, boolean fileRegions) {
        this.metrics = metrics;
        this.compressor = compressor;
        this.fileRegions = fileRegions && compressor == null;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.readThrottle = new ServerReadThrottle(ctx.channel());
        this.traffic = ConnectionTraffic.of(ctx.channel());
    }

    /** The connection's counters, where readers count their credit. Event loop. */
    ConnectionTraffic traffic() {
        return traffic;
    }

    /** Pauses reading from this connection while it cannot take more. Event loop. */
    ServerReadThrottle readThrottle() {
        assert inEventLoop() : "called off the connection's event loop";
        return readThrottle;
    }

    /**
     * Whether the caller runs on this connection's event loop (true before the handler is added: nothing runs
     * concurrently then). For the {@code assert}s of the event-loop-only methods here and in the readers.
     */
    boolean inEventLoop() {
        ChannelHandlerContext context = ctx;
        return context == null || context.executor().inEventLoop();
    }

    /** Hands a reader that may have data to the event loop. Any thread; never blocks. */
    void notifyReaderNonEmpty(CreditBasedViewReader reader) {
        if (!reader.markNotificationPending()) {
            return;
        }
        notifiedReaders.add(reader);
        if (drainScheduled.compareAndSet(false, true)) {
            try {
                ctx.executor().execute(drainTask);
            } catch (RejectedExecutionException e) {
                // The event loop has shut down (the environment is closing): the connection and its readers go
                // with it, and the producer learns of the release from its partition, not from a Netty exception
                // thrown into emitRecord. Nothing is lost: the reader's data stays in its subpartition.
                LOG.debug("Notification for {} dropped: the event loop of {} has shut down", reader.receiverId(),
                        ctx.channel());
            }
        }
    }

    private void drainNotifications() {
        // Cleared first: a notification arriving after this point schedules a new drain.
        drainScheduled.set(false);
        CreditBasedViewReader reader;
        while ((reader = notifiedReaders.poll()) != null) {
            reader.clearNotificationPending();
            if (BufferTrace.ENABLED) {
                BufferTrace.record(BufferTrace.Hop.NOTIFY, reader.receiverId().hashCode(), -1, null);
            }
            enqueueIfAvailable(reader);
        }
        writeAndFlush();
    }

    /** Registers a new reader (its view may come later). Event loop. */
    void register(CreditBasedViewReader reader) {
        assert ctx.executor().inEventLoop();
        traffic.addCredit(reader.credit());
        CreditBasedViewReader previous = allReaders.put(reader.receiverId(), reader);
        if (previous != null) {
            // A retriggered request for the same receiver replaces the old reader.
            removeReader(previous);
        }
    }

    /** The reader of {@code receiverId}, or null. Event loop. */
    CreditBasedViewReader reader(InputChannelId receiverId) {
        assert inEventLoop() : "called off the connection's event loop";
        return allReaders.get(receiverId);
    }

    /** Readers waiting in the available-readers queue now (each counted as often as it sits there). Event loop. */
    int availableReaderCount() {
        assert inEventLoop() : "called off the connection's event loop";
        return availableReaders.size();
    }

    /**
     * Adds credit announced by a receiver; what it allows is sent at the end of the read that brought it. Event loop,
     * within a read of the connection (a message the server handler received).
     */
    void addCreditOrResume(InputChannelId receiverId, int credit) {
        assert ctx.executor().inEventLoop();
        CreditBasedViewReader reader = allReaders.get(receiverId);
        if (reader == null) {
            // The reader finished or was cancelled while the credit was on its way.
            return;
        }
        if (!reader.addCredit(credit)) {
            // A protocol error of this receiver alone: its reader goes, the partition and the other readers stay.
            LOG.warn("Receiver {} on {} announced {} credit on top of {}: credit overflow; failing its reader",
                    receiverId, ctx.channel(), credit, reader.credit());
            failReader(reader, new ShuffleException("credit overflow: receiver " + receiverId + " of partition "
                    + reader.partitionId() + " announced " + credit + " more credit on top of " + reader.credit()
                    + ", beyond " + Integer.MAX_VALUE + "; the client broke the credit protocol"));
            return;
        }
        enqueueIfAvailable(reader);
        writeAtReadComplete = true;
    }

    /**
     * The receiver has processed the blocking event its reader sent: unblock the view and send what queued behind
     * it, at the end of the read that brought the message. Event loop, within a read; unknown ids are ignored (the
     * reader finished or was cancelled meanwhile).
     */
    void resumeConsumption(InputChannelId receiverId) {
        assert ctx.executor().inEventLoop();
        CreditBasedViewReader reader = allReaders.get(receiverId);
        if (reader == null) {
            return;
        }
        reader.resumeConsumption();
        enqueueIfAvailable(reader);
        writeAtReadComplete = true;
    }

    /**
     * The receiver wants buffers of at most {@code bufferSize} bytes from now on: its reader hands the size to its
     * view (or keeps it until the view is attached). Nothing is sent for it. Event loop, within a read; unknown ids
     * are ignored (the reader finished or was cancelled meanwhile).
     */
    void announceBufferSize(InputChannelId receiverId, int bufferSize) {
        assert ctx.executor().inEventLoop();
        CreditBasedViewReader reader = allReaders.get(receiverId);
        if (reader != null) {
            reader.announceBufferSize(bufferSize);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (writeAtReadComplete) {
            writeAtReadComplete = false;
            writeAndFlush();
        }
        super.channelReadComplete(ctx);
    }

    /** Whether this connection writes file spans as FileRegions (TCP, no TLS, no compression). Any thread. */
    boolean sendsFileRegions() {
        return fileRegions;
    }

    /** Sends what a reader has now that its view is attached. Event loop. */
    void onViewAttached(CreditBasedViewReader reader) {
        assert inEventLoop() : "called off the connection's event loop";
        if (fileRegions) {
            reader.enableFileSpans();
        }
        enqueueIfAvailable(reader);
        writeAndFlush();
    }

    /** The receiver no longer wants its subpartition: release the reader. Event loop; unknown ids are ignored. */
    void cancel(InputChannelId receiverId) {
        assert ctx.executor().inEventLoop();
        CreditBasedViewReader reader = allReaders.get(receiverId);
        if (reader != null) {
            removeReader(reader);
            LOG.debug("Cancelled {} on {}", reader, ctx.channel());
        }
    }

    /**
     * Answers a receiver with an error and forgets its reader. Event loop. The reply is written even when the
     * connection is not writable (it is small and the receiver must learn of its failure), but then
     * {@link ServerReadThrottle} has stopped reading, so no new request can add to the queue until it drains.
     */
    void failReader(CreditBasedViewReader reader, Throwable cause) {
        assert inEventLoop() : "called off the connection's event loop";
        removeReader(reader);
        if (!ctx.channel().isActive()) {
            return;
        }
        ctx.writeAndFlush(ErrorResponse.of(cause, reader.receiverId()))
                .addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    /** Releases every reader of this connection; their consumers are gone. Event loop. */
    void releaseAllReaders() {
        assert inEventLoop() : "called off the connection's event loop";
        for (CreditBasedViewReader reader : new ArrayList<>(allReaders.values())) {
            removeReader(reader);
        }
        availableReaders.clear();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        readThrottle.writabilityChanged();
        writeAndFlush();
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (!allReaders.isEmpty()) {
            LOG.debug("Connection {} closed with {} readers; releasing their views", ctx.channel(), allReaders.size());
        }
        releaseAllReaders();
        super.channelInactive(ctx);
    }

    private void enqueueIfAvailable(CreditBasedViewReader reader) {
        if (!reader.isQueued() && !reader.isReleased() && reader.isAvailable()) {
            reader.setQueued(true);
            availableReaders.add(reader);
        }
    }

    private void removeReader(CreditBasedViewReader reader) {
        forgetReader(reader);
        reader.release();
    }

    /** Takes the reader out of this connection's maps and queue, leaving its view as it is. Event loop. */
    private void forgetReader(CreditBasedViewReader reader) {
        allReaders.remove(reader.receiverId(), reader);
        if (reader.isQueued()) {
            availableReaders.remove(reader);
            reader.setQueued(false);
        }
    }

    /**
     * Writes a reader's end of partition: the reader is done and leaves this connection now, but its view is
     * released only once the end (and so every buffer before it) has left the connection's outbound buffer for the
     * socket, or the write failed. Releasing the view is what lets the subpartition, and with its last one the
     * partition, count as consumed; a producer may close its environment as soon as its partitions are consumed
     * ({@code ShuffleEnvironment.partitionsOccupyingLocalResources()}), and that close drops whatever still waits
     * in Netty's outbound buffer. Releasing at the write, as before, lost the tail of a stream to a consumer whose
     * socket was full. Event loop; the listener runs on it too.
     */
    private void writeEndOfPartition(CreditBasedViewReader reader, BufferResponse response) {
        forgetReader(reader);
        ChannelPromise written = ctx.newPromise();
        written.addListener(future -> {
            if (!future.isSuccess()) {
                LOG.debug("End of partition for {} not written on {}: {}", reader, ctx.channel(),
                        String.valueOf(future.cause()));
            }
            reader.release();
        });
        ctx.write(response, written);
    }

    /**
     * Sends the reader's next elements if they are a span of a file, as many buffers back to back as its credit
     * allows: a {@link StoredBuffersResponse} header, then the stored bytes straight from the file (one sendfile
     * where the transport has it). Event loop.
     *
     * @return false when the next element is not a file span (nothing was written)
     */
    private boolean writeFileSpan(CreditBasedViewReader reader) {
        assert inEventLoop() : "called off the connection's event loop";
        FileSpan span;
        try {
            span = reader.pollFileSpan();
        } catch (RuntimeException e) {
            LOG.warn("Reading {} failed; answering its receiver with the error", reader, e);
            failReader(reader, e);
            return true;
        }
        if (span == null) {
            return false;
        }
        // One region per run of stored buffers, over the reader's one open handle: the region takes over the span's
        // reference, and the message the region.
        FileRegion region = new SharedFileRegion(span.file(), span.position(), span.length());
        ctx.write(StoredBuffersResponse.of(span, region, reader.receiverId()), ctx.voidPromise());
        metrics.onBuffersSent(span.buffers(), span.dataBytes());
        if ((span.isDataAvailable() && reader.credit() > 0) || span.nextIsEvent()) {
            reader.setQueued(true);
            availableReaders.add(reader);
        }
        return true;
    }

    /**
     * The response for a data buffer of a compressing sender: its LZ4 block in a pooled ByteBuf when that is smaller
     * (the buffer is then recycled here), else the buffer itself. Takes over the caller's buffer reference.
     */
    private BufferResponse compressIfSmaller(Buffer buffer, InputChannelId receiverId,
                                             int sequenceNumber, int backlog) {
        int size = buffer.readableBytes();
        ByteBuf block = ctx.alloc().directBuffer(compressor.maxCompressedLength(size));
        int compressedSize;
        try {
            ByteBuffer source = buffer.getMemorySegment().wrap(
                    buffer.getMemorySegmentOffset() + buffer.getReaderIndex(), size);
            compressedSize = compressor.compress(source, source.position(), size,
                    block.nioBuffer(0, block.capacity()), 0);
        } catch (RuntimeException e) {
            block.release();
            buffer.recycleBuffer();
            throw e;
        }
        if (compressedSize < 0) {
            block.release();
            return BufferResponse.fromCompressingSender(buffer, receiverId, sequenceNumber, backlog);
        }
        block.writerIndex(compressedSize);
        buffer.recycleBuffer();
        return BufferResponse.compressed(block, receiverId, sequenceNumber, backlog);
    }

    /**
     * Writes while the channel is writable and some reader can send, then flushes once. Event loop.
     */
    private void writeAndFlush() {
        assert ctx.executor().inEventLoop();
        Channel channel = ctx.channel();
        if (!channel.isActive()) {
            return;
        }
        boolean wrote = false;
        while (channel.isWritable()) {
            CreditBasedViewReader reader = availableReaders.poll();
            if (reader == null) {
                break;
            }
            reader.setQueued(false);
            if (fileRegions && writeFileSpan(reader)) {
                wrote = true;
                continue;
            }
            BufferAndBacklog next;
            try {
                next = reader.getNextBuffer();
            } catch (RuntimeException e) {
                LOG.warn("Reading {} failed; answering its receiver with the error", reader, e);
                failReader(reader, e);
                continue;
            }
            if (next == null) {
                if (reader.isViewReleased()) {
                    failReader(reader, reader.failureCause());
                }
                continue;
            }
            Buffer buffer = next.buffer();
            if (BufferTrace.ENABLED && buffer.isBuffer()) {
                BufferTrace.record(BufferTrace.Hop.WRITE, reader.receiverId().hashCode(), next.sequenceNumber(),
                        buffer.getMemorySegment());
            }
            boolean endOfPartition = !buffer.isBuffer() && !next.isPriority() && EventSerializer.isEndOfPartition(buffer);
            DataType dataType = buffer.isBuffer() ? DataType.DATA_BUFFER
                    : next.isPriority() ? DataType.PRIORITY_EVENT_BUFFER : DataType.EVENT_BUFFER;
            // Ownership of the buffer passes to the message, and through the encoder to Netty, which recycles it
            // once written (or on failure); a compressed buffer is recycled at once.
            BufferResponse response = compressor != null && buffer.isBuffer()
                    ? compressIfSmaller(buffer, reader.receiverId(), next.sequenceNumber(), next.buffersInBacklog())
                    : new BufferResponse(buffer, reader.receiverId(), next.sequenceNumber(), next.buffersInBacklog(),
                    dataType, buffer.readableBytes());
            metrics.onBufferSent(response.bufferSize());
            wrote = true;
            if (endOfPartition) {
                writeEndOfPartition(reader, response);
                continue;
            }
            ctx.write(response, ctx.voidPromise());
            if ((next.isDataAvailable() && reader.credit() > 0) || next.nextIsEvent()) {
                // The poll already said what follows (under the subpartition's lock): no second look. When it
                // said "nothing", the subpartition notifies again; when credit ran out, AddCredit re-checks.
                reader.setQueued(true);
                availableReaders.add(reader);
            }
        }
        if (wrote) {
            ctx.flush();
        }
    }
}
