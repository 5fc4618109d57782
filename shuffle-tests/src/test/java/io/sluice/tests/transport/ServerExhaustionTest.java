package io.sluice.tests.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.netty.gate.InputChannelId;
import io.sluice.netty.transport.ChannelPipelineHook;
import io.sluice.netty.transport.NettyMessage;
import io.sluice.netty.transport.NettyMessageEncoder;
import io.sluice.netty.transport.PartitionRequest;
import io.sluice.netty.transport.ServerMessageDecoder;
import io.sluice.netty.transport.TaskEventRequest;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryTcpTransport;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No client can make the data server hold unbounded memory, and a normal consumer keeps working meanwhile:
 * 200 connections that each send part of a frame and stop are closed within the heartbeat timeout and the server's
 * direct memory returns to its baseline; a client that floods requests for unknown partitions and never reads its
 * socket is stopped (the server stops reading from it) with bounded memory, then closed.
 *
 * <p>What the server holds is measured exactly: a {@link ChannelPipelineHook} gives every channel the data server
 * accepts an unpooled direct allocator of the test's own, whose metric is the bytes of the buffers alive now (a pooled
 * allocator keeps freed chunks, so its footprint never drops back).
 */
class ServerExhaustionTest {

    /**
     * Longer than the 2 s of the heartbeat tests: 200 connections on a shared 2-core machine (load averages of 40
     * were seen) can delay event loops by seconds, and the good consumer's connection must not time out meanwhile.
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final ShuffleConfig CONFIG = MemoryConfig.of(256, MemoryConfig.SMALL_SEGMENT)
            .with(ShuffleOptions.NETTY_HEARTBEAT_INTERVAL, Duration.ofMillis(500))
            .with(ShuffleOptions.NETTY_HEARTBEAT_TIMEOUT, TIMEOUT)
            .with(ShuffleOptions.NETTY_SERVER_THREADS, 2);
    private static final Duration CLOSED_WITHIN = Duration.ofSeconds(20);
    private static final int SLOW_DRIP_CONNECTIONS = 200;
    /** Half of the largest frame the server accepts: each connection makes the server hold ~32 KiB. */
    private static final int PARTIAL_FRAME_BYTES = ResultPartitionWriter.MAX_EVENT_BYTES / 2;
    /**
     * What the server may hold above its baseline once the attackers are gone: the good consumer's connection may be
     * mid-write (a frame header, a cumulation buffer); far below the ~6 MiB that one attack round holds.
     */
    private static final long BASELINE_SLACK = 256L << 10;
    /**
     * Bound on the server's direct memory growth during the flood: the write-buffer high-water mark plus the replies
     * of one read's and the parked requests' worth. Unbounded growth would pass this within a second.
     */
    private static final long FLOOD_MEMORY_BOUND = 32L << 20;
    private static final int FLOOD_BATCH = 1000;
    private static final int FLOOD_MAX_BATCHES = 20_000;
    /** 50,000 distinct requests: far more than the server lets in before it stops reading. */
    private static final int FLOOD_DISTINCT_BATCHES = 50;
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * MemoryConfig.SMALL_SEGMENT);
    private static final long RECORDS = 2000;
    private static final long SEED = 0xE4A05L;

    @EveryTcpTransport
    void twoHundredPartialFrames_areClosedWithinTheTimeout_andTheMemoryTheyHeldIsFreed(Transport transport)
            throws Exception {
        ServerAllocator server = new ServerAllocator();
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG, server)) {
            InetSocketAddress address = shuffle.producerEnvironment().dataAddress();
            shuffleRecords(shuffle, "warm-up");
            for (String round : new String[] {"first", "second"}) {
                long baseline = server.used();
                long peak = slowDripRound(shuffle, server, address, round);
                long held = peak - baseline;
                assertTrue(held >= SLOW_DRIP_CONNECTIONS * (long) PARTIAL_FRAME_BYTES / 2, "the probe saw the "
                        + round + " attack: " + held + " bytes held at its peak");
                long bound = SLOW_DRIP_CONNECTIONS * (long) ServerMessageDecoder.maxClientFrameLength() * 2;
                assertTrue(held < bound, "the server held " + held + " bytes for " + SLOW_DRIP_CONNECTIONS
                        + " partial frames; bound " + bound);
                Await.until(() -> server.used() <= baseline + BASELINE_SLACK, CLOSED_WITHIN,
                        () -> "server direct memory back to its baseline after the " + round + " attack: "
                                + server.used() + " bytes now, baseline " + baseline + ", peak " + peak);
            }
            shuffleRecords(shuffle, "after the attack");
        }
    }

    /** 200 connections each send half a frame and stop; the server closes all of them. @return the memory peak */
    private static long slowDripRound(ShuffleFixture shuffle, ServerAllocator memory, InetSocketAddress server,
                                      String round) throws Exception {
        byte[] partialFrame = Arrays.copyOf(encode(new TaskEventRequest(
                ByteBuffer.allocate(ResultPartitionWriter.MAX_EVENT_BYTES), ResultPartitionId.random(),
                new InputChannelId(1, 2))), PARTIAL_FRAME_BYTES);
        List<Socket> attackers = new ArrayList<>();
        try (DirectMemoryProbe probe = DirectMemoryProbe.start(memory.metric())) {
            for (int i = 0; i < SLOW_DRIP_CONNECTIONS; i++) {
                Socket socket = new Socket(server.getAddress(), server.getPort());
                attackers.add(socket);
                socket.getOutputStream().write(partialFrame);
            }
            shuffleRecords(shuffle, "during the " + round + " attack");
            for (Socket socket : attackers) {
                assertClosedByServer(socket);
            }
            Await.until(() -> shuffle.producerEnvironment().metrics().openConnections() == 0, CLOSED_WITHIN,
                    () -> "every attacker connection closed on the server: " + shuffle.producerEnvironment().metrics());
            return probe.peak();
        } finally {
            for (Socket socket : attackers) {
                socket.close();
            }
        }
    }

    @EveryTcpTransport
    void floodOfUnknownPartitionRequests_fromAClientThatNeverReads_keepsServerMemoryBounded(Transport transport)
            throws Exception {
        ServerAllocator memory = new ServerAllocator();
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG, memory)) {
            InetSocketAddress server = shuffle.producerEnvironment().dataAddress();
            shuffleRecords(shuffle, "warm-up");
            long baseline = memory.used();
            // Distinct receivers: each request is answered with its own error, which the flooder never reads.
            byte[][] batches = new byte[FLOOD_DISTINCT_BATCHES][];
            for (int b = 0; b < FLOOD_DISTINCT_BATCHES; b++) {
                ByteArrayBatch batch = new ByteArrayBatch();
                for (int i = 0; i < FLOOD_BATCH; i++) {
                    batch.add(encode(new PartitionRequest(ResultPartitionId.random(), 0, new InputChannelId(b, i),
                            2)));
                }
                batches[b] = batch.bytes();
            }
            try (DirectMemoryProbe probe = DirectMemoryProbe.start(memory.metric()); Socket flooder = new Socket()) {
                flooder.setReceiveBufferSize(1024);
                flooder.connect(server);
                BackgroundTask<Integer> flood = shuffle.fork("flooder", () -> {
                    OutputStream out = flooder.getOutputStream();
                    for (int i = 0; i < FLOOD_MAX_BATCHES; i++) {
                        out.write(batches[i % FLOOD_DISTINCT_BATCHES]);
                    }
                    return FLOOD_MAX_BATCHES;
                });
                shuffleRecords(shuffle, "during the flood");
                Throwable end = flood.awaitFailure(CLOSED_WITHIN);
                assertInstanceOf(IOException.class, end, "the server stopped reading, then closed the flooder");
                assertTrue(probe.peak() - baseline < FLOOD_MEMORY_BOUND, "server direct memory grew by "
                        + (probe.peak() - baseline) + " bytes during the flood; bound " + FLOOD_MEMORY_BOUND);
            }
            Await.until(() -> memory.used() <= baseline + BASELINE_SLACK, CLOSED_WITHIN,
                    () -> "server direct memory back to its baseline after the flood: " + memory.used()
                            + " bytes now, baseline " + baseline);
            shuffleRecords(shuffle, "after the flood");
        }
    }

    /** A normal consumer reads a whole stream from the producer environment. */
    private static void shuffleRecords(ShuffleFixture shuffle, String when) throws Exception {
        Endpoints.streamAndVerify(shuffle, when, SIZES, SEED, RECORDS);
    }

    private static byte[] encode(NettyMessage message) {
        EmbeddedChannel channel = new EmbeddedChannel(new NettyMessageEncoder());
        channel.writeOutbound(message);
        ByteBuf frame = channel.readOutbound();
        byte[] bytes = new byte[frame.readableBytes()];
        frame.readBytes(bytes);
        frame.release();
        channel.finishAndReleaseAll();
        return bytes;
    }

    private static void assertClosedByServer(Socket socket) throws IOException {
        socket.setSoTimeout((int) CLOSED_WITHIN.toMillis());
        InputStream in = socket.getInputStream();
        try {
            // Heartbeats may arrive first; the end of the stream (or a reset) is what counts.
            while (in.read() >= 0) {
                continue;
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server did not close a connection holding a partial frame within "
                    + CLOSED_WITHIN, e);
        } catch (IOException reset) {
            // Closed with unread data: a reset is a close too.
        }
    }

    /** Gives every channel the data server accepts an unpooled direct allocator whose metric counts live bytes. */
    private static final class ServerAllocator implements ChannelPipelineHook {
        private final UnpooledByteBufAllocator allocator = new UnpooledByteBufAllocator(true);

        @Override
        public void serverChannelInitialized(Channel channel) {
            channel.config().setAllocator(allocator);
        }

        ByteBufAllocatorMetric metric() {
            return allocator.metric();
        }

        long used() {
            return allocator.metric().usedDirectMemory();
        }
    }

    /** Concatenates frames. */
    private static final class ByteArrayBatch {
        private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();

        void add(byte[] frame) {
            out.writeBytes(frame);
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
