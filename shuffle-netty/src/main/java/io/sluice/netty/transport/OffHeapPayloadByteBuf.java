package io.sluice.netty.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferTrace;

import java.nio.ByteBuffer;

/**
 * A Netty view of the readable bytes of an off-heap Sluice {@link Buffer}, so that the data of a
 * {@link BufferResponse} goes to the socket without a copy.
 *
 * <p>Ownership: it takes over one reference of the Sluice buffer. Netty releases this ByteBuf once it has written
 * it, or when the write fails; when its reference count reaches zero, {@link #deallocate()} recycles the Sluice
 * buffer. Netty's reference count guarantees that this happens exactly once, also when derived ByteBufs (slices,
 * duplicates) are released last. The memory itself is never freed here: it belongs to the buffer's pool.
 * Not thread-safe beyond Netty's reference counting: used by the channel's event loop.
 */
final class OffHeapPayloadByteBuf extends UnpooledDirectByteBuf {

    private final Buffer owner;

    /** @param view a direct, writable view of exactly the bytes to send (Netty refuses read-only views) */
    OffHeapPayloadByteBuf(ByteBufAllocator alloc, ByteBuffer view, Buffer owner) {
        // This constructor wraps the view without copying and marks it "not ours to free".
        super(alloc, view, view.remaining());
        this.owner = owner;
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        if (BufferTrace.ENABLED) {
            BufferTrace.record(BufferTrace.Hop.SOCKET_DONE, 0, -1, owner.getMemorySegment());
        }
        owner.recycleBuffer();
    }
}
