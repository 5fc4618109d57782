package io.sluice.netty.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;
import io.sluice.buffers.Buffer;
import io.sluice.buffers.BufferTrace;
import io.sluice.buffers.MemorySegment;

/**
 * A Netty view of the readable bytes of an off-heap Sluice {@link Buffer}, so that the data of a
 * {@link BufferResponse} goes to the socket without a copy.
 *
 * <p>It wraps the segment's {@linkplain MemorySegment#sharedView() shared view} (the whole segment, made once with
 * the segment) with its reader and writer index around the buffer's readable bytes, and knows the memory address,
 * so that epoll writes from the address: no {@code ByteBuffer} is made per buffer sent. The NIO transport still
 * asks for one internal NIO view per write. Where Netty has no {@code Unsafe} (no memory addresses),
 * {@link SlicedOffHeapPayloadByteBuf} does the same with one slice of the view per buffer.
 *
 * <p>Ownership: it takes over one reference of the Sluice buffer. Netty releases this ByteBuf once it has written
 * it, or when the write fails; when its reference count reaches zero, {@link #deallocate()} recycles the Sluice
 * buffer. Netty's reference count guarantees that this happens exactly once, also when derived ByteBufs (slices,
 * duplicates) are released last. The memory itself is never freed here: it belongs to the buffer's pool.
 * Not thread-safe beyond Netty's reference counting: used by the channel's event loop.
 */
final class OffHeapPayloadByteBuf extends UnpooledUnsafeDirectByteBuf {

    /** Whether Netty knows memory addresses here; read once, not per buffer sent. */
    private static final boolean ADDRESSES = PlatformDependent.hasUnsafe();

    private final Buffer owner;

    private OffHeapPayloadByteBuf(ByteBufAllocator alloc, MemorySegment segment, int offset, int length,
                                  Buffer owner) {
        // slice = false: wrap the shared view itself; Netty reads it by address and absolute index only.
        super(alloc, false, segment.sharedView(), segment.size());
        setIndex(offset, offset + length);
        this.owner = owner;
    }

    /**
     * A ByteBuf over {@code owner}'s readable bytes that owns the caller's reference of {@code owner}.
     *
     * @param owner an off-heap buffer
     */
    static ByteBuf wrapReadableBytes(ByteBufAllocator alloc, Buffer owner) {
        MemorySegment segment = owner.getMemorySegment();
        int offset = owner.getMemorySegmentOffset() + owner.getReaderIndex();
        int length = owner.readableBytes();
        return ADDRESSES
                ? new OffHeapPayloadByteBuf(alloc, segment, offset, length, owner)
                : new SlicedOffHeapPayloadByteBuf(alloc, segment, offset, length, owner);
    }

    @Override
    protected void deallocate() {
        super.deallocate();
        recycleSent(owner);
    }

    /** Recycles the Sluice buffer whose bytes Netty has written (or failed to write), tracing the hop. */
    static void recycleSent(Buffer owner) {
        if (BufferTrace.ENABLED) {
            BufferTrace.record(BufferTrace.Hop.SOCKET_DONE, 0, -1, owner.getMemorySegment());
        }
        owner.recycleBuffer();
    }
}
