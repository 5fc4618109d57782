package io.sluice.buffers;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The reference count of one segment, shared by a {@link Buffer} and every read-only slice of it. When the count
 * drops to zero the segment goes to the recycler, exactly once. Any thread: updates are lock-free CAS loops.
 */
final class ReferenceCount {

    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(ReferenceCount.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MemorySegment segment;

    private final BufferRecycler recycler;

    /** Live references; 0 means recycled (terminal). Updated only through {@link #COUNT}. */
    @SuppressWarnings("unused") // accessed through the VarHandle
    private volatile int count = 1;

    ReferenceCount(MemorySegment segment, BufferRecycler recycler) {
        this.segment = segment;
        this.recycler = recycler;
    }

    MemorySegment segment() {
        return segment;
    }

    BufferRecycler recycler() {
        return recycler;
    }

    int get() {
        return count;
    }

    /** Adds one reference; fails if the segment was already recycled (a buffer must not come back to life). */
    void retain() {
        int current;
        do {
            current = count;
            if (current <= 0) {
                throw illegalCount(current, "retain");
            }
        } while (!COUNT.compareAndSet(this, current, current + 1));
    }

    /** Drops one reference; the thread that drops the last one hands the segment to the recycler. */
    void release() {
        int current;
        do {
            current = count;
            if (current <= 0) {
                throw illegalCount(current, "release");
            }
        } while (!COUNT.compareAndSet(this, current, current - 1));
        if (current == 1) {
            if (BufferTrace.ENABLED) {
                BufferTrace.record(BufferTrace.Hop.RECYCLE, 0, -1, segment);
            }
            recycler.recycle(segment);
        }
    }

    private IllegalStateException illegalCount(int current, String operation) {
        return new IllegalStateException("illegal reference count " + current + " on " + operation
                + " of a buffer over " + segment + ": it was already recycled");
    }
}
