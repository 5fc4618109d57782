package io.sluice.netty.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.sluice.buffers.Buffer;

/**
 * A Netty view of the readable bytes of a heap Sluice {@link Buffer} (an event), so that a {@link BufferResponse}
 * is handed to Netty without a copy. Its readable bytes are {@code array[offset, offset + length)}; the socket
 * transports copy heap ByteBufs to direct memory themselves, the in-JVM transport passes it on as it is.
 *
 * <p>Ownership: as {@link OffHeapPayloadByteBuf}: it takes over one reference of the Sluice buffer and recycles it
 * from {@link #deallocate()}, exactly once, when Netty releases the last reference after the write.
 * Used by the channel's event loop.
 */
final class HeapPayloadByteBuf extends UnpooledHeapByteBuf {

    private final Buffer owner;

    /** @param array the buffer's backing array; bytes {@code [offset, offset + length)} are sent */
    HeapPayloadByteBuf(ByteBufAllocator alloc, byte[] array, int offset, int length, Buffer owner) {
        super(alloc, array, array.length);
        setIndex(offset, offset + length);
        this.owner = owner;
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        owner.recycleBuffer();
    }
}
