package io.sluice.netty.transport;

import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.MemorySegment;
import io.sluice.netty.event.EventSerializer;

import java.nio.ByteBuffer;

/** Test data: buffers filled with a recognisable pattern, and their bytes. */
final class TestBuffers {

    /** The segment size the tests use: 32 KiB, the library's default. */
    static final int SEGMENT_SIZE = 32 * 1024;

    private TestBuffers() {
    }

    /** {@code size} bytes whose values depend on {@code seed} and the position, so that shifts and swaps show. */
    static byte[] pattern(int size, int seed) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (seed * 31 + i * 7 + (i >>> 8));
        }
        return bytes;
    }

    /** An off-heap data buffer of one segment holding {@code pattern(size, seed)}. */
    static Buffer dataBuffer(int size, int seed, BufferRecycler recycler) {
        MemorySegment segment = MemorySegment.allocateOffHeap(SEGMENT_SIZE);
        segment.put(0, pattern(size, seed), 0, size);
        return new Buffer(segment, recycler, true, size);
    }

    /** {@code pattern(size, seed)} made a valid user event: its first byte is the user event's type tag. */
    static byte[] eventPattern(int size, int seed) {
        byte[] bytes = pattern(size, seed);
        if (size > 0) {
            bytes[0] = EventSerializer.userEvent(ByteBuffer.allocate(0)).getMemorySegment().get(0);
        }
        return bytes;
    }

    /** A heap event buffer holding {@code eventPattern(size, seed)}: a user event. */
    static Buffer eventBuffer(int size, int seed, BufferRecycler recycler) {
        return new Buffer(MemorySegment.wrap(eventPattern(size, seed)), recycler, false, size);
    }

    /** The readable bytes of {@code buffer} (copied; the buffer is unchanged). */
    static byte[] readableBytes(Buffer buffer) {
        ByteBuffer view = buffer.getNioBufferReadable();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return bytes;
    }
}
