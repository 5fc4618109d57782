package io.sluice.netty.transport;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.mock;
import io.sluice.buffers.BufferRecycler;
import io.sluice.api.ResultPartitionId;
import io.sluice.buffers.Buffer;
import io.sluice.netty.gate.InputChannelId;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Messages reject impossible field values at construction, and own what they are given as documented. */
class MessageConstructionTest {

    private static final ResultPartitionId PARTITION = new ResultPartitionId(1, 2);
    private static final InputChannelId RECEIVER = new InputChannelId(0x0123456789abcdefL, 0xfedcba9876543210L);

    @Test
    void inputChannelId_printsAs32HexDigits_upperHalfFirst() {
        assertEquals("0123456789abcdeffedcba9876543210", RECEIVER.toString());
        assertEquals("0000000000000001ffffffffffffffff", new InputChannelId(1, -1).toString());
    }

    @Test
    void randomInputChannelIds_differ() {
        InputChannelId first = InputChannelId.random();

        assertNotEquals(first, InputChannelId.random());
        assertTrue(first.toString().matches("[0-9a-f]{32}"), first.toString());
    }

    @Test
    void addCredit_ofZero_isRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new AddCredit(0, RECEIVER));

        assertEquals("credit must be > 0, was 0 (receiver " + RECEIVER + ")", e.getMessage());
    }

    @Test
    void partitionRequest_withNegativeIndexOrCredit_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> new PartitionRequest(PARTITION, -1, RECEIVER, 2));
        assertThrows(IllegalArgumentException.class, () -> new PartitionRequest(PARTITION, 0, RECEIVER, -2));
    }

    @Test
    void bufferResponse_whoseSizeDiffersFromTheBuffer_isRejected() {
        Buffer buffer = TestBuffers.dataBuffer(100, 1, mock(BufferRecycler.class));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new BufferResponse(buffer, RECEIVER, 0, 0, DataType.DATA_BUFFER, 99));

        assertTrue(e.getMessage().startsWith("bufferSize 99 differs from the buffer's 100 readable bytes"),
                e.getMessage());
    }

    @Test
    void receivedHeader_takesItsPayloadOnce_ofTheAnnouncedSizeAndType() {
        BufferRecycler recycler = mock(BufferRecycler.class);
        BufferResponse header = new BufferResponse(null, RECEIVER, 3, 0, DataType.DATA_BUFFER, 100);

        assertThrows(IllegalArgumentException.class,
                () -> header.attachPayload(TestBuffers.dataBuffer(99, 1, recycler)));
        assertThrows(IllegalArgumentException.class,
                () -> header.attachPayload(TestBuffers.eventBuffer(100, 1, recycler)));
        Buffer payload = TestBuffers.dataBuffer(100, 1, recycler);
        assertSame(header, header.attachPayload(payload));
        IllegalStateException twice = assertThrows(IllegalStateException.class,
                () -> header.attachPayload(TestBuffers.dataBuffer(100, 2, recycler)));

        assertSame(payload, header.buffer());
        assertTrue(twice.getMessage().contains("already carries its payload"), twice.getMessage());
    }

    @Test
    void bufferResponse_whoseTypeDiffersFromTheBuffer_isRejected() {
        Buffer event = TestBuffers.eventBuffer(4, 1, mock(BufferRecycler.class));

        assertThrows(IllegalArgumentException.class,
                () -> new BufferResponse(event, RECEIVER, 0, 0, DataType.DATA_BUFFER, 4));
    }

    @Test
    void bufferResponse_releasesItsBufferThroughNettysReferenceCounting() {
        BufferRecycler recycler = mock(BufferRecycler.class);
        BufferResponse response = new BufferResponse(TestBuffers.dataBuffer(10, 1, recycler), RECEIVER, 0, 0,
                DataType.DATA_BUFFER, 10);

        response.retain();
        assertEquals(2, response.refCnt());
        assertFalse(response.release());
        assertTrue(response.release());
        verify(recycler, times(1)).recycle(any());
    }

    @Test
    void bufferResponseWithoutBuffer_hasNothingToRelease() {
        BufferResponse skipped = new BufferResponse(null, RECEIVER, 0, 0, DataType.DATA_BUFFER, 500);

        assertFalse(skipped.release());
        assertEquals(1, skipped.refCnt());
    }

    @Test
    void taskEventRequest_copiesTheEvent_withoutMovingTheSource() {
        ByteBuffer source = ByteBuffer.wrap(new byte[] {1, 2, 3, 4});
        source.position(1);
        TaskEventRequest request = new TaskEventRequest(source, PARTITION, RECEIVER);

        source.put(1, (byte) 9);

        assertEquals(1, source.position());
        assertEquals(ByteBuffer.wrap(new byte[] {2, 3, 4}), request.event());
        assertTrue(request.event().isReadOnly());
    }
}
