package io.sluice.buffers;

/**
 * Receives a segment whose last buffer reference was released. Ownership of the segment passes to the recycler
 * with the call. Implementations are called on whatever thread released the last reference, with no pool lock
 * held, and must be thread-safe.
 */
@FunctionalInterface
public interface BufferRecycler {

    /** Takes back {@code segment}; the caller must not touch it afterwards. */
    void recycle(MemorySegment segment);

    /** For heap segments (events): nothing to return, the garbage collector takes the memory. */
    BufferRecycler DISCARD = segment -> { };
}
