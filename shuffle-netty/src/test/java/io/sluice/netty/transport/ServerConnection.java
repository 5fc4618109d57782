package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.buffers.Buffer;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.partition.ResultPartitionManager;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server end of one client connection in an {@link EmbeddedChannel}, with the pipeline the data server builds
 * (encoder, request handler, queue; the decoder too when the test feeds bytes), over a real
 * {@link ResultPartitionManager}; and a client decoder that turns what the server wrote back into messages.
 *
 * <p>The embedded event loop runs tasks only when the test says so ({@link #runPendingTasks()}, and after each
 * {@link #send}): producer notifications and registration callbacks wait for it, as they would wait for the real
 * event loop; {@link EventLoopTasks} runs them one after another. Time is frozen; {@link #advanceTimeBy} moves it
 * (the wait for a partition that is not registered).
 *
 * <p>{@link #close()} closes the connection and asserts that every ByteBuf was released.
 * Test thread only.
 */
final class ServerConnection implements AutoCloseable {

    /** How long the server keeps a request for a partition that is not registered. */
    static final long WAIT_FOR_PARTITION_MILLIS = 100;

    /** What the server wrote for a receiver: a BufferResponse, its payload copied (its buffer is recycled). */
    record Sent(InputChannelId receiverId, int sequenceNumber, int backlog, DataType dataType, byte[] payload) {
    }

    /** Room for the payloads the tests send: their partitions' segments are smaller. */
    private static final int PAYLOAD_CAPACITY = 4096;

    /** The user-defined writability bit the tests use to block the channel. */
    private static final int TEST_WRITABILITY_BIT = 1;

    private final CodecChannels codec = new CodecChannels();
    private final FlushCounter flushes = new FlushCounter();
    /** Every ByteBuf handed to the server's decoder, to check that it released them. */
    private final List<ByteBuf> fed = new ArrayList<>();
    private final TransportMetrics metrics = new TransportMetrics();
    private final PartitionRequestQueue queue = new PartitionRequestQueue(metrics);
    private final EmbeddedChannel channel;
    private final EmbeddedChannel decoding;

    /**
     * @param withDecoder whether the pipeline starts with the server decoder ({@link #sendBytes}) or takes decoded
     *                    messages ({@link #send})
     * @param receivers   the receivers the test addresses; payloads for others are skipped by the client decoder
     */
    ServerConnection(ResultPartitionManager partitionManager, boolean withDecoder, InputChannelId... receivers) {
        PartitionRequestServerHandler handler = new PartitionRequestServerHandler(partitionManager, queue,
                WAIT_FOR_PARTITION_MILLIS);
        channel = withDecoder
                ? codec.channel(flushes, new EventLoopTasks(), new ServerMessageDecoder(1 << 20),
                        new NettyMessageEncoder(), handler, queue)
                : codec.channel(flushes, new EventLoopTasks(), new NettyMessageEncoder(), handler, queue);
        channel.freezeTime();
        decoding = codec.client(new TestNetworkBufferAllocator(PAYLOAD_CAPACITY, receivers));
    }

    /** The counters the queue updates. */
    TransportMetrics metrics() {
        return metrics;
    }

    PartitionRequestQueue queue() {
        return queue;
    }

    EmbeddedChannel channel() {
        return channel;
    }

    /** The reader the server keeps for {@code receiverId}, or null. */
    CreditBasedViewReader reader(InputChannelId receiverId) {
        return queue.reader(receiverId);
    }

    /** Hands decoded client messages to the server, in order, then runs what they scheduled. */
    void send(NettyMessage... messages) {
        EventLoopTasks.deliver(channel, (Object[]) messages);
    }

    /** Hands client messages to the server as bytes, in chunks of {@code chunkSize}. */
    void sendBytes(int chunkSize, NettyMessage... messages) {
        sendRaw(codec.encode(messages), chunkSize);
    }

    /** How often the server flushed the connection so far. */
    int flushes() {
        return flushes.count;
    }

    /**
     * Holds ({@code true}) the server's flushes before they reach the socket, as a socket whose send buffer is full
     * would: what the server writes meanwhile stays in the channel's outbound buffer and its write promises stay
     * pending. Letting go ({@code false}) flushes once, and so completes them.
     */
    void holdFlushes(boolean hold) {
        flushes.held = hold;
        if (!hold) {
            channel.flush();
            EventLoopTasks.run(channel);
        }
    }

    /** Hands raw bytes to the server's decoder, in reads of {@code chunkSize}. */
    void sendRaw(byte[] bytes, int chunkSize) {
        fed.addAll(EventLoopTasks.deliverBytes(channel, bytes, chunkSize));
    }

    /** Runs the event-loop tasks waiting now (producer notifications, registration callbacks). */
    void runPendingTasks() {
        EventLoopTasks.run(channel);
    }

    /** Moves the frozen clock and runs what falls due. */
    void advanceTimeBy(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        EventLoopTasks.run(channel);
    }

    /** Blocks ({@code false}) or unblocks the channel's writability, as a full or drained socket buffer would. */
    void setWritable(boolean writable) {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(TEST_WRITABILITY_BIT, writable);
        EventLoopTasks.run(channel);
        assertEquals(writable, channel.isWritable());
    }

    /**
     * Everything the server wrote since the last call, decoded: {@link Sent} for BufferResponses, the
     * {@link ErrorResponse}s as they are. Releases every ByteBuf the server wrote, which recycles the producer's
     * buffers.
     */
    List<Object> written() {
        for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            decoding.writeInbound((ByteBuf) out);
        }
        List<Object> messages = new ArrayList<>();
        for (Object message : CodecChannels.readInbound(decoding)) {
            if (message instanceof BufferResponse response) {
                Buffer buffer = response.buffer();
                byte[] payload = buffer == null ? new byte[0] : TestBuffers.readableBytes(buffer);
                response.releaseBuffer();
                messages.add(new Sent(response.receiverId(), response.sequenceNumber(), response.backlog(),
                        response.dataType(), payload));
            } else {
                messages.add(message);
            }
        }
        return messages;
    }

    /** The BufferResponses written since the last call; fails on anything else. */
    List<Sent> writtenBuffers() {
        List<Sent> sent = new ArrayList<>();
        for (Object message : written()) {
            assertTrue(message instanceof Sent, "expected only BufferResponses, got " + message);
            sent.add((Sent) message);
        }
        return sent;
    }

    /** The one message written since the last call; fails if there is none or more. */
    Object writtenOnce() {
        List<Object> messages = written();
        assertEquals(1, messages.size(), "messages written: " + messages);
        return messages.get(0);
    }

    /** Nothing was written since the last call. */
    void assertNothingWritten() {
        List<Object> messages = written();
        assertTrue(messages.isEmpty(), "expected no message, got " + messages);
    }

    /** Closes the connection as a client that goes away would. */
    void closeConnection() {
        channel.close();
        EventLoopTasks.run(channel);
        assertFalse(channel.isActive());
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
        decoding.finishAndReleaseAll();
        codec.assertNettyMemoryReleased();
        for (ByteBuf chunk : fed) {
            assertEquals(0, chunk.refCnt(), "a ByteBuf fed to the server was not released");
        }
    }

    /** Counts the flushes that reach the head of the pipeline (the socket), and holds them when told. Event loop. */
    private static final class FlushCounter extends ChannelOutboundHandlerAdapter {

        private int count;
        private boolean held;

        @Override
        public void flush(ChannelHandlerContext ctx) {
            count++;
            if (!held) {
                ctx.flush();
            }
        }
    }
}
