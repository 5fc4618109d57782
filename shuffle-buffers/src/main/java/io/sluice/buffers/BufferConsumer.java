package io.sluice.buffers;

/**
 * The reader side of a buffer under construction: hands out the bytes a {@link BufferBuilder} committed, as
 * read-only slices of the same segment (no copy).
 *
 * <p>Threads: one reader thread per consumer, which may differ from the writer's; copies may be read on other
 * threads.
 *
 * <p>Ownership: the consumer holds one reference to the underlying buffer and releases it on {@link #close()};
 * each buffer from {@link #build()} carries its own reference, which its receiver releases.
 */
public final class BufferConsumer implements AutoCloseable {

    /** The underlying buffer; this consumer owns one reference until {@link #close()}. */
    private final Buffer buffer;

    private final CommittedPosition writerPosition;

    /** Bytes of the buffer handed out by {@link #build()} so far. */
    private int readerPosition;

    private boolean closed;

    /**
     * A consumer of a complete buffer (an event, or data built elsewhere): finished from the start, its readable
     * bytes come out on the first {@link #build()}. Takes over the caller's reference to {@code completeBuffer}.
     */
    public BufferConsumer(Buffer completeBuffer) {
        this(completeBuffer, CommittedPosition.finishedAt(completeBuffer.getSize()), completeBuffer.getReaderIndex());
    }

    /** Takes over one reference to {@code buffer}. */
    BufferConsumer(Buffer buffer, CommittedPosition writerPosition, int readerPosition) {
        this.buffer = buffer;
        this.writerPosition = writerPosition;
        this.readerPosition = readerPosition;
    }

    /**
     * A read-only slice of the bytes committed since the last build (size 0 if none), carrying its own reference:
     * the caller recycles it.
     */
    public Buffer build() {
        if (closed) {
            throw new IllegalStateException("cannot build from a closed consumer: " + this);
        }
        int end = CommittedPosition.bytes(writerPosition.read());
        Buffer slice = buffer.readOnlySlice(readerPosition, end - readerPosition);
        readerPosition = end;
        return slice.retainBuffer();
    }

    /** The segment under this consumer (for {@link BufferTrace}). */
    MemorySegment segment() {
        return buffer.getMemorySegment();
    }

    /** True once the builder is finished AND every committed byte was built. */
    public boolean isFinished() {
        int snapshot = writerPosition.read();
        return CommittedPosition.isFinished(snapshot) && readerPosition == CommittedPosition.bytes(snapshot);
    }

    /**
     * True once the builder is finished, whether or not everything was built yet: no more bytes will come. Lets a
     * reader tell a complete buffer from one under construction without reading it.
     */
    public boolean isWriterFinished() {
        return CommittedPosition.isFinished(writerPosition.read());
    }

    /** True for data, false for an event. */
    public boolean isBuffer() {
        return buffer.isBuffer();
    }

    /** True if committed bytes wait to be built. */
    public boolean isDataAvailable() {
        return CommittedPosition.bytes(writerPosition.read()) > readerPosition;
    }

    /** Bytes committed by the builder so far. */
    public int getWrittenBytes() {
        return CommittedPosition.bytes(writerPosition.read());
    }

    public int getCurrentReaderPosition() {
        return readerPosition;
    }

    /**
     * A second consumer over the same buffer starting at this consumer's read position; it advances on its own
     * and sees everything committed later. Takes a new reference: the caller closes the copy.
     */
    public BufferConsumer copy() {
        if (closed) {
            throw new IllegalStateException("cannot copy a closed consumer: " + this);
        }
        return new BufferConsumer(buffer.retainBuffer(), writerPosition, readerPosition);
    }

    public boolean isRecycled() {
        return buffer.isRecycled();
    }

    /** Releases this consumer's reference; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        buffer.recycleBuffer();
    }

    @Override
    public String toString() {
        int snapshot = writerPosition.read();
        return "BufferConsumer[read " + readerPosition + ", committed " + CommittedPosition.bytes(snapshot)
                + (CommittedPosition.isFinished(snapshot) ? ", finished" : "") + (closed ? ", closed]" : "]");
    }
}
