package io.sluice.netty.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.MemorySegment;

/**
 * {@link OffHeapPayloadByteBuf} for JVMs where Netty runs without {@code Unsafe} and so knows no memory addresses:
 * the same view of an off-heap Sluice buffer's readable bytes, over one slice of the segment's
 * {@linkplain MemorySegment#sharedView() shared view} per buffer (Netty's constructor slices it). Ownership as
 * there: it takes over one reference of the Sluice buffer and recycles it exactly once, from {@link #deallocate()}.
 * Used by the channel's event loop.
 */
final class SlicedOffHeapPayloadByteBuf extends UnpooledDirectByteBuf {

    private final Buffer owner;

    SlicedOffHeapPayloadByteBuf(ByteBufAllocator alloc, MemorySegment segment, int offset, int length,
                                Buffer owner) {
        super(alloc, segment.sharedView(), segment.size());
        setIndex(offset, offset + length);
        this.owner = owner;
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        OffHeapPayloadByteBuf.recycleSent(owner);
    }
}
