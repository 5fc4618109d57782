package io.sluice.netty.transport;

import io.sluice.buffers.BufferRecycler;
import io.sluice.buffers.MemorySegment;

/** Test double: counts the segments handed back. Segments are left to the GC (views may still point at them). */
final class CountingRecycler implements BufferRecycler {

    private int recycled;

    @Override
    public void recycle(MemorySegment segment) {
        recycled++;
    }

    int recycled() {
        return recycled;
    }
}
