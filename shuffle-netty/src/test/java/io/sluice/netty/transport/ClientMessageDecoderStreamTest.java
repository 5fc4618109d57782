package io.sluice.netty.transport;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.mock;
import io.sluice.buffers.BufferRecycler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MSG-4, MSG-6: the client decoder on a stream of many frames, however the stream is cut into reads, with
 * receivers that are unknown, and with the channel closing in the middle of a frame.
 */
class ClientMessageDecoderStreamTest {

    private static final InputChannelId KNOWN = new InputChannelId(1, 2);
    private static final InputChannelId UNKNOWN = new InputChannelId(3, 4);

    /** Payload sizes around the chunk sizes below and up to one full segment. */
    private static final int[] SIZES = {0, 1, 17, 255, 256, 257, 2047, 2048, 2049, 5000, TestBuffers.SEGMENT_SIZE};

    private final CodecChannels channels = new CodecChannels();
    private final TestNetworkBufferAllocator receiving = new TestNetworkBufferAllocator(KNOWN);
    private final EmbeddedChannel client = channels.client(receiving);
    private final BufferRecycler sending = mock(BufferRecycler.class);

    @ParameterizedTest(name = "chunks of {0} bytes")
    @ValueSource(ints = {1, 256, 2048, 40_000})
    void manyFrames_mergedAndResplit_decodeInOrder_withIntactBytes(int chunkSize) {
        List<NettyMessage> sent = new ArrayList<>();
        for (int i = 0; i < 3 * SIZES.length; i++) {
            int size = SIZES[i % SIZES.length];
            boolean event = i % 5 == 4;
            sent.add(new BufferResponse(event ? TestBuffers.eventBuffer(size, i, sending)
                    : TestBuffers.dataBuffer(size, i, sending), KNOWN, i, i % 3,
                    event ? DataType.EVENT_BUFFER : DataType.DATA_BUFFER, size));
            if (i == SIZES.length) {
                sent.add(new ErrorResponse(ErrorKind.TRANSPORT, "in the middle", null, KNOWN));
            }
        }

        channels.feed(client, channels.encode(sent.toArray(NettyMessage[]::new)), chunkSize);
        List<Object> decoded = CodecChannels.readInbound(client);

        assertEquals(sent.size(), decoded.size());
        assertEquals(sent.get(SIZES.length + 1), decoded.get(SIZES.length + 1));
        int sequenceNumber = 0;
        for (Object message : decoded) {
            if (message instanceof BufferResponse response) {
                assertEquals(sequenceNumber, response.sequenceNumber(), "order");
                assertEquals(sequenceNumber % 3, response.backlog());
                assertEquals(sequenceNumber % 5 == 4, !response.dataType().isBuffer());
                assertPayload(expectedPayload(response, sequenceNumber), response);
                response.releaseBuffer();
                sequenceNumber++;
            }
        }
        assertEquals(3 * SIZES.length, sequenceNumber);
        verify(sending, times(3 * SIZES.length)).recycle(any());
        assertAllReleased();
    }

    @ParameterizedTest(name = "chunks of {0} bytes")
    @ValueSource(ints = {1, 256, 100_000})
    void unknownReceiverMidStream_payloadSkipped_followingFramesAndEventsDecode(int chunkSize) {
        byte[] wire = channels.encode(
                data(KNOWN, 0, 300),
                data(UNKNOWN, 1, 5000),
                new BufferResponse(TestBuffers.eventBuffer(40, 2, sending), KNOWN, 2, 0, DataType.EVENT_BUFFER, 40),
                data(UNKNOWN, 3, 1),
                new BufferResponse(TestBuffers.eventBuffer(8, 4, sending), KNOWN, 4, 0,
                        DataType.PRIORITY_EVENT_BUFFER, 8),
                data(KNOWN, 5, TestBuffers.SEGMENT_SIZE),
                new ErrorResponse(ErrorKind.PRODUCER_FAILED, "after the skipped ones", null, KNOWN));

        channels.feed(client, wire, chunkSize);
        List<Object> decoded = CodecChannels.readInbound(client);

        assertEquals(7, decoded.size());
        assertSkipped((BufferResponse) decoded.get(1), 1, 5000);
        assertSkipped((BufferResponse) decoded.get(3), 3, 1);
        for (int i : new int[] {0, 2, 4, 5}) {
            BufferResponse response = (BufferResponse) decoded.get(i);
            assertEquals(i, response.sequenceNumber());
            assertPayload(expectedPayload(response, i), response);
            response.releaseBuffer();
        }
        assertEquals("after the skipped ones", ((ErrorResponse) decoded.get(6)).message());
        assertEquals(List.of(KNOWN, UNKNOWN, UNKNOWN, KNOWN), receiving.pooledRequests());
        assertEquals(4, receiving.handedOut().size());
        assertAllReleased();
    }

    @Test
    void channelClosedWhileCopyingAPayload_recyclesTheHalfFilledBuffer() {
        byte[] wire = channels.encode(data(KNOWN, 0, 10_000));

        channels.feed(client, Arrays.copyOf(wire, 5000), 1000);
        assertEquals(1, receiving.handedOut().size());
        assertEquals(0, receiving.recycled());
        assertNull(client.readInbound());

        assertFalse(client.finishAndReleaseAll());
        assertEquals(1, receiving.recycled());
        channels.assertNettyMemoryReleased();
    }

    @Test
    void channelClosedWhileReadingAnErrorResponse_releasesTheAccumulatedBody() {
        byte[] wire = channels.encode(new ErrorResponse(ErrorKind.TRANSPORT, "x".repeat(500), null, null));

        channels.feed(client, Arrays.copyOf(wire, 200), 50);
        assertTrue(channels.nettyBytesInUse() >= wire.length - Frame.HEADER_LENGTH, "the body is being accumulated");

        assertFalse(client.finishAndReleaseAll());
        channels.assertNettyMemoryReleased();
    }

    @Test
    void payloadLargerThanTheReceiversBuffer_isCorrupt_andTheBufferIsRecycled() {
        TestNetworkBufferAllocator smallBuffers = new TestNetworkBufferAllocator(1024, KNOWN);
        EmbeddedChannel smallClient = channels.client(smallBuffers);
        byte[] wire = channels.encode(data(KNOWN, 0, 2048));

        CorruptFrameException e = assertThrows(CorruptFrameException.class,
                () -> channels.feed(smallClient, wire, wire.length));

        assertTrue(e.getMessage().contains("2048 bytes") && e.getMessage().contains("buffer of 1024 bytes"),
                e.getMessage());
        assertEquals(1, smallBuffers.recycled());
        smallClient.finishAndReleaseAll();
        client.finishAndReleaseAll();
        channels.assertNettyMemoryReleased();
    }

    private BufferResponse data(InputChannelId receiver, int sequenceNumber, int size) {
        return new BufferResponse(TestBuffers.dataBuffer(size, sequenceNumber, sending), receiver, sequenceNumber, 0,
                DataType.DATA_BUFFER, size);
    }

    private static void assertSkipped(BufferResponse response, int sequenceNumber, int size) {
        assertNull(response.buffer());
        assertEquals(UNKNOWN, response.receiverId());
        assertEquals(sequenceNumber, response.sequenceNumber());
        assertEquals(size, response.bufferSize());
    }

    private static void assertPayload(byte[] expected, BufferResponse response) {
        if (expected.length == 0) {
            assertNull(response.buffer(), "an empty payload takes no buffer");
        } else {
            assertArrayEquals(expected, TestBuffers.readableBytes(response.buffer()),
                    () -> "payload of " + response);
        }
    }

    private void assertAllReleased() {
        assertFalse(client.finishAndReleaseAll());
        assertEquals(receiving.handedOut().size(), receiving.recycled());
        channels.assertNettyMemoryReleased();
    }

    /** What {@link TestBuffers} put into the data buffer or event of {@code seed}. */
    private static byte[] expectedPayload(BufferResponse response, int seed) {
        return response.dataType().isBuffer() ? TestBuffers.pattern(response.bufferSize(), seed)
                : TestBuffers.eventPattern(response.bufferSize(), seed);
    }
}
