package io.sluice.netty.event;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.MemorySegment;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Fuzzes {@link EventSerializer} with any event buffer, as one arrives from the wire: any bytes, read from any
 * reader index. Byte 0 of the input is the reader index (modulo the length), the rest the buffer's bytes.
 *
 * <p>Invariant: {@link EventSerializer#typeOf} and {@link EventSerializer#isEndOfPartition} return or throw the
 * documented IllegalArgumentException (empty buffer, unknown tag), nothing else; a user event's payload is exactly
 * the bytes after its tag; {@link EventSerializer#userEvent} of those bytes makes the same event again; a data buffer
 * is never an end of partition. The corpus is in {@code EventSerializerFuzzTestInputs}.
 */
class EventSerializerFuzzTest {

    @FuzzTest(maxDuration = "2m")
    void anyEventBytes_readAsATypeOrRejected_userPayloadRoundTrips(byte[] input) {
        if (input.length == 0) {
            return;
        }
        byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
        int readerIndex = bytes.length == 0 ? 0 : (input[0] & 0xFF) % (bytes.length + 1);
        Buffer event = new Buffer(MemorySegment.wrap(bytes), BufferRecycler.DISCARD, false, bytes.length);
        event.setReaderIndex(readerIndex);
        Buffer data = new Buffer(MemorySegment.wrap(bytes.clone()), BufferRecycler.DISCARD, true, bytes.length);

        assertFalse(EventSerializer.isEndOfPartition(data), "a data buffer is never an end of partition");
        EventSerializer.EventType type;
        try {
            type = EventSerializer.typeOf(event);
        } catch (IllegalArgumentException e) {
            assertTrue(readerIndex == bytes.length || bytes[readerIndex] > 1 || bytes[readerIndex] < 0, e.getMessage());
            assertTrue(e.getMessage().startsWith("empty event buffer") || e.getMessage().startsWith("unknown event tag"),
                    e.getMessage());
            return;
        } catch (RuntimeException e) {
            fail("undocumented " + e, e);
            return;
        }
        assertEquals(type == EventSerializer.EventType.END_OF_PARTITION, EventSerializer.isEndOfPartition(event));
        if (type == EventSerializer.EventType.END_OF_PARTITION) {
            int size = bytes.length - readerIndex;
            try {
                long count = EventSerializer.dataBytesOf(event);
                assertTrue(size == EventSerializer.TAG_BYTES ? count == -1 : count >= 0, "count " + count);
            } catch (IllegalArgumentException e) {
                assertTrue(size != EventSerializer.TAG_BYTES, "an end of only its tag is valid: " + e.getMessage());
            }
        }
        if (type == EventSerializer.EventType.USER_EVENT) {
            byte[] expected = Arrays.copyOfRange(bytes, readerIndex + EventSerializer.TAG_BYTES, bytes.length);
            ByteBuffer payload = EventSerializer.payloadOf(event);
            assertArrayEquals(expected, remaining(payload));
            Buffer again = EventSerializer.userEvent(ByteBuffer.wrap(expected));
            assertEquals(EventSerializer.EventType.USER_EVENT, EventSerializer.typeOf(again));
            assertArrayEquals(expected, remaining(EventSerializer.payloadOf(again)));
        }
    }

    private static byte[] remaining(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
