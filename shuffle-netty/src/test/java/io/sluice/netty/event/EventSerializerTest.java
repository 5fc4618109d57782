package io.sluice.netty.event;

import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.MemorySegment;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The end of partition and the data byte count it may carry. */
class EventSerializerTest {

    @Test
    void endOfPartitionWithACount_isAnEndOfPartition_andCarriesTheCount() {
        Buffer end = EventSerializer.endOfPartition(12_390_331L);

        assertTrue(EventSerializer.isEndOfPartition(end));
        assertEquals(EventSerializer.END_OF_PARTITION_COUNTED_BYTES, end.readableBytes());
        assertEquals(12_390_331L, EventSerializer.dataBytesOf(end));
    }

    @Test
    void endOfPartitionWithoutACount_saysSoWithMinusOne() {
        assertEquals(-1, EventSerializer.dataBytesOf(EventSerializer.endOfPartition()));
    }

    @Test
    void endOfPartitionOfAnotherLength_orWithANegativeCount_isRejectedNamingTheLayout() {
        Buffer odd = event(new byte[] {0, 1, 2, 3});
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                () -> EventSerializer.dataBytesOf(odd));
        assertTrue(error.getMessage().contains("1 or 9 bytes"), error.getMessage());

        ByteBuffer negative = ByteBuffer.allocate(9).put((byte) 0).putLong(-5);
        assertThrows(IllegalArgumentException.class, () -> EventSerializer.dataBytesOf(event(negative.array())));
        assertThrows(IllegalArgumentException.class, () -> EventSerializer.endOfPartition(-1));
    }

    @Test
    void dataBytesOfAUserEvent_isRejected() {
        Buffer user = EventSerializer.userEvent(ByteBuffer.wrap(new byte[8]));
        assertThrows(IllegalArgumentException.class, () -> EventSerializer.dataBytesOf(user));
    }

    private static Buffer event(byte[] bytes) {
        return new Buffer(MemorySegment.wrap(bytes), BufferRecycler.DISCARD, false, bytes.length);
    }
}
