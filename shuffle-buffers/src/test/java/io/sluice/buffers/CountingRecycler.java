package io.sluice.buffers;

import java.util.ArrayList;
import java.util.List;

/** Test double: remembers every segment it is given, in order. Any thread. */
final class CountingRecycler implements BufferRecycler {

    private final List<MemorySegment> recycled = new ArrayList<>();

    @Override
    public synchronized void recycle(MemorySegment segment) {
        recycled.add(segment);
    }

    synchronized int count() {
        return recycled.size();
    }

    synchronized List<MemorySegment> segments() {
        return new ArrayList<>(recycled);
    }
}
