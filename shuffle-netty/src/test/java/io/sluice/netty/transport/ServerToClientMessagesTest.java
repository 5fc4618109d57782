package io.sluice.netty.transport;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.mock;
import io.sluice.buffers.BufferRecycler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.TransportException;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MSG-2, MSG-3, MSG-5: ErrorResponses and BufferResponses survive the encoder and the {@link ClientMessageDecoder};
 * the sender's buffer is recycled exactly once, the receiver's data lands in a buffer from the allocator.
 */
class ServerToClientMessagesTest {

    private static final ResultPartitionId PARTITION = new ResultPartitionId(-1L, 0x00ff00ff00ff00ffL);
    private static final InputChannelId RECEIVER = new InputChannelId(0x1122334455667788L, -0x1122334455667788L);
    private static final InetSocketAddress PRODUCER = new InetSocketAddress("127.0.0.1", 4711);

    private final CodecChannels channels = new CodecChannels();
    private final TestNetworkBufferAllocator receiving = new TestNetworkBufferAllocator(RECEIVER);
    private final EmbeddedChannel client = channels.client(receiving);
    private final BufferRecycler sending = mock(BufferRecycler.class);

    @AfterEach
    void everythingReleased() {
        assertEquals(List.of(), CodecChannels.readInbound(client));
        client.finishAndReleaseAll();
        channels.assertNettyMemoryReleased();
        assertEquals(receiving.handedOut().size(), receiving.recycled(), "receiver buffers recycled");
    }

    static Stream<ErrorResponse> errorResponses() {
        return Stream.of(
                new ErrorResponse(ErrorKind.PRODUCER_FAILED, "Producer failed: disk full", PARTITION, RECEIVER),
                new ErrorResponse(ErrorKind.TRANSPORT, null, null, RECEIVER),
                new ErrorResponse(ErrorKind.TRANSPORT, "server handler failed", null, null),
                new ErrorResponse(ErrorKind.PARTITION_NOT_FOUND, "Partition not found", PARTITION, RECEIVER),
                new ErrorResponse(ErrorKind.PRODUCER_FAILED, "", null, null),
                new ErrorResponse(ErrorKind.TRANSPORT, "Grüße, 日本語 ✓", PARTITION, null));
    }

    @ParameterizedTest
    @MethodSource("errorResponses")
    void errorResponse_withOrWithoutMessage_targetedOrFatal_hasEveryFieldEqual(ErrorResponse sent) {
        List<Object> decoded = channels.decode(client, channels.encode(sent));

        assertEquals(List.of(sent), decoded);
        ErrorResponse received = (ErrorResponse) decoded.get(0);
        assertEquals(sent.isFatal(), received.isFatal());
        assertEquals(sent.message(), received.message());
    }

    @Test
    void producerFailure_keepsExceptionTypeAndMessage_acrossTheWire() {
        ProducerFailedException cause = new ProducerFailedException("Producer of " + PARTITION + " failed: disk full");

        ErrorResponse received = (ErrorResponse) channels.decode(client,
                channels.encode(ErrorResponse.of(cause, RECEIVER))).get(0);

        Throwable raised = received.toException(PRODUCER);
        assertInstanceOf(ProducerFailedException.class, raised);
        assertEquals(cause.getMessage(), raised.getMessage());
        assertEquals(RECEIVER, received.receiverId());
    }

    @Test
    void missingPartition_keepsExceptionTypeAndPartitionId_acrossTheWire() {
        ErrorResponse received = (ErrorResponse) channels.decode(client,
                channels.encode(ErrorResponse.of(new PartitionNotFoundException(PARTITION), RECEIVER))).get(0);

        PartitionNotFoundException raised =
                assertInstanceOf(PartitionNotFoundException.class, received.toException(PRODUCER));
        assertEquals(PARTITION, raised.partitionId());
    }

    @Test
    void fatalTransportError_staysFatal_andNamesTheRemote() {
        ErrorResponse received = (ErrorResponse) channels.decode(client,
                channels.encode(ErrorResponse.of(new IllegalStateException("handler broke"), null))).get(0);

        assertTrue(received.isFatal());
        TransportException raised = assertInstanceOf(TransportException.class, received.toException(PRODUCER));
        assertTrue(raised.getMessage().contains("java.lang.IllegalStateException: handler broke"), raised.getMessage());
        assertSame(PRODUCER, raised.remoteAddress());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 1000, TestBuffers.SEGMENT_SIZE - 1, TestBuffers.SEGMENT_SIZE})
    void dataBuffer_arrivesByteIdentical_inABufferFromTheAllocator(int size) {
        Buffer sent = TestBuffers.dataBuffer(size, size, sending);
        BufferResponse received = roundTrip(new BufferResponse(sent, RECEIVER, 42, 3, DataType.DATA_BUFFER, size));

        verify(sending, times(1).description("sender buffer recycled exactly once")).recycle(any());
        assertTrue(sent.isRecycled());
        assertEquals(List.of(RECEIVER), receiving.pooledRequests());
        assertSame(receiving.handedOut().get(0), received.buffer());
        assertHeader(received, 42, 3, DataType.DATA_BUFFER, size);
        assertTrue(received.buffer().isBuffer());
        assertArrayEquals(TestBuffers.pattern(size, size), TestBuffers.readableBytes(received.buffer()));

        received.releaseBuffer();
        assertEquals(1, receiving.recycled(), "receiver buffer recycled on release");
    }

    @ParameterizedTest
    @EnumSource(value = DataType.class, names = {"EVENT_BUFFER", "PRIORITY_EVENT_BUFFER"})
    void event_arrivesByteIdentical_inAnUnpooledBuffer_withoutAskingForADataBuffer(DataType type) {
        Buffer sent = TestBuffers.eventBuffer(57, 5, sending);
        BufferResponse received = roundTrip(new BufferResponse(sent, RECEIVER, 9, 0, type, 57));

        verify(sending, times(1)).recycle(any());
        assertEquals(List.of(), receiving.pooledRequests());
        assertEquals(1, receiving.eventRequests());
        assertSame(receiving.handedOut().get(0), received.buffer());
        assertHeader(received, 9, 0, type, 57);
        assertFalse(received.buffer().isBuffer());
        assertArrayEquals(TestBuffers.eventPattern(57, 5), TestBuffers.readableBytes(received.buffer()));
        received.releaseBuffer();
    }

    @Test
    void readOnlySlice_sendsOnlyItsReadableBytes_andRecyclesTheSharedBufferOnce() {
        Buffer original = TestBuffers.dataBuffer(1000, 11, sending);
        Buffer slice = original.readOnlySlice(100, 500);
        slice.setReaderIndex(20);

        BufferResponse received = roundTrip(new BufferResponse(slice, RECEIVER, 1, 0, DataType.DATA_BUFFER, 480));

        byte[] expected = new byte[480];
        System.arraycopy(TestBuffers.pattern(1000, 11), 120, expected, 0, 480);
        assertArrayEquals(expected, TestBuffers.readableBytes(received.buffer()));
        verify(sending, times(1)).recycle(any());
        assertTrue(original.isRecycled());
        received.releaseBuffer();
    }

    @Test
    void readOnlySliceOfAHeapEvent_sendsOnlyItsReadableBytes() {
        byte[] bytes = TestBuffers.eventPattern(64, 2);
        bytes[10] = bytes[0]; // the slice starts with an event tag too: the receiver accepts only valid events
        Buffer event = new Buffer(MemorySegment.wrap(bytes), sending, false, 64);
        BufferResponse received = roundTrip(new BufferResponse(event.readOnlySlice(10, 30), RECEIVER, 1, 0,
                DataType.EVENT_BUFFER, 30));

        byte[] expected = new byte[30];
        System.arraycopy(bytes, 10, expected, 0, 30);
        assertArrayEquals(expected, TestBuffers.readableBytes(received.buffer()));
        verify(sending, times(1)).recycle(any());
        received.releaseBuffer();
    }

    @Test
    void emptyBuffer_isDecodedWithoutTakingABuffer_keepingSequenceNumberAndBacklog() {
        Buffer sent = TestBuffers.dataBuffer(0, 0, sending);
        BufferResponse received = roundTrip(new BufferResponse(sent, RECEIVER, 17, 4, DataType.DATA_BUFFER, 0));

        verify(sending, times(1)).recycle(any());
        assertNull(received.buffer());
        assertHeader(received, 17, 4, DataType.DATA_BUFFER, 0);
        assertEquals(List.of(), receiving.pooledRequests());
        assertEquals(0, receiving.eventRequests());
    }

    private BufferResponse roundTrip(BufferResponse sent) {
        List<Object> decoded = channels.decode(client, channels.encode(sent));
        assertEquals(1, decoded.size(), () -> "decoded " + decoded);
        return (BufferResponse) decoded.get(0);
    }

    private static void assertHeader(BufferResponse received, int sequenceNumber, int backlog, DataType type,
                                     int size) {
        assertEquals(RECEIVER, received.receiverId());
        assertEquals(sequenceNumber, received.sequenceNumber());
        assertEquals(backlog, received.backlog());
        assertEquals(type, received.dataType());
        assertEquals(size, received.bufferSize());
    }
}
