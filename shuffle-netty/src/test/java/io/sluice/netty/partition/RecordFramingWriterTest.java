package io.sluice.netty.partition;

import io.sluice.api.RecordFraming;
import io.sluice.buffers.BufferBuilder;
import io.sluice.buffers.BufferConsumer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.MemorySegment;
import io.sluice.buffers.Buffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The partitions write record lengths through {@link RecordFraming}: its {@code putLength}, and, on the pipelined
 * fast path, {@link BufferBuilder#appendInt}, which must put exactly the same bytes; both are what
 * {@link RecordFraming#lengthByte} defines.
 */
class RecordFramingWriterTest {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 255, 256, 65_536, 0x01020304, Integer.MAX_VALUE})
    void putLength_andTheBuilderFastPath_writeTheBytesRecordFramingDefines(int length) {
        byte[] defined = new byte[RecordFraming.LENGTH_BYTES];
        for (int i = 0; i < defined.length; i++) {
            defined[i] = RecordFraming.lengthByte(length, i);
        }

        ByteBuffer littleEndian = ByteBuffer.allocate(RecordFraming.LENGTH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        RecordFraming.putLength(littleEndian, length);
        assertArrayEquals(defined, littleEndian.array(), "putLength, whatever the buffer's byte order");

        BufferBuilder builder = new BufferBuilder(MemorySegment.allocateOffHeap(64), BufferRecycler.DISCARD);
        BufferConsumer consumer = builder.createBufferConsumerFromBeginning();
        builder.appendInt(RecordFraming.checkedLength(length));
        builder.finish();
        Buffer buffer = consumer.build();
        ByteBuffer written = buffer.getNioBufferReadable();
        byte[] bytes = new byte[written.remaining()];
        written.get(bytes);
        assertArrayEquals(defined, bytes, "BufferBuilder.appendInt");
        buffer.recycleBuffer();
        consumer.close();
        builder.close();

        int assembled = 0;
        for (byte b : defined) {
            assembled = RecordFraming.appendLengthByte(assembled, b);
        }
        assertEquals(length, assembled, "what RecordReader reads back");
    }

    @org.junit.jupiter.api.Test
    void negativeLength_isRefused() {
        assertThrows(IllegalArgumentException.class, () -> RecordFraming.putLength(ByteBuffer.allocate(4), -1));
        assertThrows(IllegalArgumentException.class, () -> RecordFraming.checkedLength(-1));
    }
}
