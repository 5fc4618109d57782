package io.sluice.netty.event;

import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.MemorySegment;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The end of partition and the data byte and buffer counts it may carry. */
class EventSerializerTest {

    @Test
    void endOfPartitionWithACount_isAnEndOfPartition_andCarriesTheCount() {
        Buffer end = EventSerializer.endOfPartition(12_390_331L);

        assertTrue(EventSerializer.isEndOfPartition(end));
        assertEquals(EventSerializer.END_OF_PARTITION_COUNTED_BYTES, end.readableBytes());
        assertEquals(12_390_331L, EventSerializer.dataBytesOf(end));
    }

    @Test
    void endOfPartitionWithBothCounts_carriesBoth() {
        Buffer end = EventSerializer.endOfPartition(12_390_331L, 379L);

        assertTrue(EventSerializer.isEndOfPartition(end));
        assertEquals(EventSerializer.END_OF_PARTITION_FULLY_COUNTED_BYTES, end.readableBytes());
        assertEquals(12_390_331L, EventSerializer.dataBytesOf(end));
        assertEquals(379L, EventSerializer.dataBuffersOf(end));
    }

    @Test
    void endOfPartitionWithoutACount_saysSoWithMinusOne() {
        assertEquals(-1, EventSerializer.dataBytesOf(EventSerializer.endOfPartition()));
        assertEquals(-1, EventSerializer.dataBuffersOf(EventSerializer.endOfPartition()));
        assertEquals(-1, EventSerializer.dataBuffersOf(EventSerializer.endOfPartition(5)), "bytes only");
    }

    @Test
    void endOfPartitionOfAnotherLength_orWithANegativeCount_isRejectedNamingTheLayout() {
        Buffer odd = event(new byte[] {0, 1, 2, 3});
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> EventSerializer.dataBytesOf(odd));
        assertTrue(error.getMessage().contains("1, 9 or 17 bytes"), error.getMessage());

        ByteBuffer negative = ByteBuffer.allocate(9).put((byte) 0).putLong(-5);
        assertThrows(IllegalArgumentException.class, () -> EventSerializer.dataBytesOf(event(negative.array())));
        ByteBuffer negativeBuffers = ByteBuffer.allocate(17).put((byte) 0).putLong(5).putLong(-5);
        assertThrows(IllegalArgumentException.class,
                () -> EventSerializer.dataBuffersOf(event(negativeBuffers.array())));
        assertThrows(IllegalArgumentException.class, () -> EventSerializer.endOfPartition(-1));
        assertThrows(IllegalArgumentException.class, () -> EventSerializer.endOfPartition(1, -1));
    }

    @Test
    void dataBytesOfAUserEvent_isRejected() {
        Buffer user = EventSerializer.userEvent(ByteBuffer.wrap(new byte[8]));
        assertThrows(IllegalArgumentException.class, () -> EventSerializer.dataBytesOf(user));
    }

    @Test
    void announcedBlockingEvent_hasItsOwnTag_blocksLikeABlockingEvent_andKeepsItsPayload() {
        Buffer announced = EventSerializer.announcedBlockingUserEvent(ByteBuffer.wrap(new byte[] {7, 8}));

        assertEquals(EventSerializer.EventType.ANNOUNCED_BLOCKING_USER_EVENT, EventSerializer.typeOf(announced));
        assertTrue(EventSerializer.isBlockingEvent(announced));
        assertTrue(EventSerializer.EventType.BLOCKING_USER_EVENT.blocks());
        assertFalse(EventSerializer.EventType.USER_EVENT.blocks());
        assertEquals(ByteBuffer.wrap(new byte[] {7, 8}), EventSerializer.payloadOf(announced));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> EventSerializer.typeOf(event(new byte[] {4})));
        assertTrue(unknown.getMessage().contains("3 announced blocking user event"), unknown.getMessage());
    }

    private static Buffer event(byte[] bytes) {
        return new Buffer(MemorySegment.wrap(bytes), BufferRecycler.DISCARD, false, bytes.length);
    }
}
