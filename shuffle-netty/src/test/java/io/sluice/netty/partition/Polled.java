package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.sluice.buffers.Buffer;
import io.sluice.netty.event.EventSerializer;
import io.sluice.netty.testing.TestRecords;

import java.nio.charset.StandardCharsets;

/**
 * What one {@link ResultSubpartitionView#getNextBuffer()} returned, copied out so that the buffer can be recycled
 * at once: the bytes (a user event's payload, or "END" for the end of the partition) and the flags that came with
 * them.
 *
 * @param bytes           data bytes, or an event's payload
 * @param isBuffer        data rather than event
 * @param endOfPartition  the end-of-partition event
 * @param isDataAvailable the reader may poll again now
 * @param backlog         finished data buffers still queued
 * @param nextIsEvent     the next element is an event
 * @param isPriority      a priority event that overtook the data
 */
record Polled(byte[] bytes, boolean isBuffer, boolean endOfPartition, boolean isDataAvailable, int backlog,
              boolean nextIsEvent, boolean isPriority) {

    /** Takes the next element (failing if there is none), copies it and recycles the buffer once. */
    static Polled take(ResultSubpartitionView view) {
        BufferAndBacklog next = view.getNextBuffer();
        assertNotNull(next, "expected an element from " + view);
        return from(next);
    }

    /** Copies {@code next} and recycles its buffer once. */
    static Polled from(BufferAndBacklog next) {
        Buffer buffer = next.buffer();
        try {
            boolean end = !buffer.isBuffer() && EventSerializer.isEndOfPartition(buffer);
            byte[] bytes = buffer.isBuffer() ? TestRecords.bytesOf(buffer.getNioBufferReadable())
                    : end ? new byte[0] : TestRecords.bytesOf(EventSerializer.payloadOf(buffer));
            return new Polled(bytes, buffer.isBuffer(), end, next.isDataAvailable(), next.buffersInBacklog(),
                    next.nextIsEvent(), next.isPriority());
        } finally {
            buffer.recycleBuffer();
        }
    }

    /** The event's payload as text. */
    String eventText() {
        assertEquals(false, isBuffer, "not an event");
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
