package io.sluice.buffers;

import java.nio.ByteBuffer;

/**
 * The writer side of a buffer under construction. Bytes are appended into the segment, and {@link #commit()}
 * publishes them to the {@link BufferConsumer} (one volatile write, no lock); {@link #finish()} publishes the end.
 *
 * <p>Threads: ONE writer thread calls every method; the consumer may read on another thread.
 *
 * <p>Ownership: the builder holds one reference to the underlying {@link Buffer} and releases it on
 * {@link #close()}; each consumer holds its own. The segment returns to its recycler once the builder is closed,
 * every consumer is closed and every built buffer is recycled.
 */
public final class BufferBuilder implements AutoCloseable {

    /** The underlying buffer; this builder owns one reference until {@link #close()}. */
    private final Buffer buffer;

    private final MemorySegment segment;

    /**
     * The segment's memory, written into directly ({@link MemorySegment#writerMemory()} says why and why it is safe:
     * this builder's reference to {@link #buffer} keeps the segment from being freed until {@link #close()}).
     */
    private final ByteBuffer memory;

    /**
     * The address of {@link #memory}'s first byte, for {@link RawMemory}'s writes of small records; 0 when those are
     * not used (a heap segment, or a JVM without {@code sun.misc.Unsafe}). Valid while {@link #memory} is (see there).
     */
    private final long address;

    private final CommittedPosition committed = CommittedPosition.unfinished();

    /** Bytes appended so far (committed or not). */
    private int writePosition;

    /** Writable limit; the segment size unless {@link #trim trimmed}. */
    private int maxCapacity;

    private boolean consumerCreated;

    private boolean closed;

    /**
     * The writer's own copy of "finished", so that the append path does not read the position it shares with the
     * reader (a cache line the reader keeps pulling over). Writer thread only.
     */
    private boolean finished;

    /** A builder over {@code segment}; the segment goes to {@code recycler} when the last reference is released. */
    public BufferBuilder(MemorySegment segment, BufferRecycler recycler) {
        this(segment, recycler, RawMemory.AVAILABLE);
    }

    /**
     * Like the public constructor, but {@code rawWrites} false keeps small records on the checked path even where
     * {@link RawMemory} is available: the path a JVM without {@code sun.misc.Unsafe} takes, so that tests can check
     * it writes the same bytes.
     *
     * @throws IllegalStateException when {@code rawWrites} is true for an off-heap segment but
     *     {@link RawMemory#AVAILABLE} is false
     */
    BufferBuilder(MemorySegment segment, BufferRecycler recycler, boolean rawWrites) {
        this.buffer = new Buffer(segment, recycler);
        this.segment = segment;
        this.memory = segment.writerMemory();
        this.address = rawWrites && segment.isOffHeap() ? RawMemory.address(memory) : 0;
        this.maxCapacity = segment.size();
    }

    /**
     * The consumer of this builder, starting at the current write position (bytes appended before are skipped).
     * Only one consumer may be created (this or {@link #createBufferConsumerFromBeginning()}); more readers use
     * {@link BufferConsumer#copy()}. The caller owns the consumer and closes it.
     */
    public BufferConsumer createBufferConsumer() {
        return createConsumerAt(writePosition);
    }

    /** Like {@link #createBufferConsumer()}, but the consumer starts at byte 0. Shares the "only once" rule. */
    public BufferConsumer createBufferConsumerFromBeginning() {
        return createConsumerAt(0);
    }

    /**
     * Copies {@code min(source.remaining(), getWritableBytes())} bytes from {@code source}, advancing its
     * position. The bytes are not visible to the consumer until {@link #commit()}.
     *
     * @return the number of bytes copied
     */
    public int append(ByteBuffer source) {
        checkWritable();
        int sourcePosition = source.position();
        int toCopy = Math.min(source.limit() - sourcePosition, maxCapacity - writePosition);
        MemorySegment.copyIn(memory, writePosition, source, sourcePosition, toCopy);
        source.position(sourcePosition + toCopy);
        writePosition += toCopy;
        return toCopy;
    }

    /**
     * Appends {@code value} as 4 big-endian bytes when at least 4 bytes are writable (not yet visible: see
     * {@link #commit()}). A fast path for length prefixes: no source buffer, no bulk copy.
     *
     * @return false, appending nothing, when fewer than 4 bytes are writable
     */
    public boolean appendInt(int value) {
        checkWritable();
        if (maxCapacity - writePosition < Integer.BYTES) {
            return false;
        }
        memory.putInt(writePosition, value);
        writePosition += Integer.BYTES;
        return true;
    }

    /**
     * Appends {@code prefix} as 4 big-endian bytes and then all of {@code source}'s remaining bytes, and commits
     * them, when all of them fit; else appends nothing. Either way {@code source}'s position stays where it was, so
     * that the caller has nothing to restore. The small-record path: one capacity check, one bounds check and one
     * release store per record, instead of one each for the prefix and the body; a record of at most 16 bytes from
     * a heap buffer goes into an off-heap segment through {@link RawMemory} (its range checked here), anything else
     * through {@link MemorySegment}'s checked copy.
     *
     * @return false, appending nothing, when fewer than {@code 4 + source.remaining()} bytes are writable
     */
    public boolean appendPrefixedAndCommit(int prefix, ByteBuffer source) {
        checkWritable();
        int sourcePosition = source.position();
        int numBytes = source.limit() - sourcePosition;
        int offset = writePosition;
        if (maxCapacity - offset - Integer.BYTES < numBytes) {
            return false;
        }
        if (address != 0 && numBytes <= MemorySegment.SMALL_COPY_BYTES && source.hasArray()) {
            // In range: offset + 4 + numBytes <= maxCapacity <= the segment's size, checked just above.
            RawMemory.putPrefixedSmall(address + offset, prefix, source.array(), source.arrayOffset() + sourcePosition,
                    numBytes);
        } else {
            MemorySegment.putPrefixed(memory, offset, prefix, source, sourcePosition, numBytes);
        }
        offset += Integer.BYTES + numBytes;
        writePosition = offset;
        committed.commit(offset);
        return true;
    }

    /** {@link #append} then {@link #commit()}. */
    public int appendAndCommit(ByteBuffer source) {
        int copied = append(source);
        commit();
        return copied;
    }

    /** Publishes every appended byte to the consumer. */
    public void commit() {
        committed.commit(writePosition);
    }

    /**
     * Commits and marks the buffer finished: no more appends. Idempotent.
     *
     * @return the total number of bytes written
     */
    public int finish() {
        if (!finished) {
            finished = true;
            committed.finish(writePosition);
        }
        return writePosition;
    }

    /** The segment written into (for {@link BufferTrace}). */
    MemorySegment segment() {
        return segment;
    }

    /** Whether small records go through {@link RawMemory} (tests of the two paths). */
    boolean usesRawWrites() {
        return address != 0;
    }

    public boolean isFinished() {
        return finished;
    }

    public boolean isFull() {
        return writePosition == maxCapacity;
    }

    public int getWritableBytes() {
        return maxCapacity - writePosition;
    }

    public int getCommittedBytes() {
        return CommittedPosition.bytes(committed.read());
    }

    public int getMaxCapacity() {
        return maxCapacity;
    }

    /**
     * Limits the capacity to {@code newSize}, clamped to {@code [bytes written, segment size]} (a negative value
     * counts as 0).
     */
    public void trim(int newSize) {
        maxCapacity = Math.min(Math.max(newSize, writePosition), segment.size());
    }

    /** Marks the content as an event rather than data; call before creating the consumer. */
    public void tagAsEvent() {
        buffer.tagAsEvent();
    }

    /** Releases the builder's reference; idempotent. Appending afterwards fails. */
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
        return "BufferBuilder[written " + writePosition + ", committed " + getCommittedBytes() + ", capacity "
                + maxCapacity + (isFinished() ? ", finished" : "") + (closed ? ", closed]" : "]");
    }

    private BufferConsumer createConsumerAt(int readerPosition) {
        if (consumerCreated) {
            throw new IllegalStateException("a consumer was already created for this builder; use "
                    + "BufferConsumer.copy() for another reader: " + this);
        }
        if (closed) {
            throw new IllegalStateException("cannot create a consumer for a closed builder: " + this);
        }
        consumerCreated = true;
        return new BufferConsumer(buffer.retainBuffer(), committed, readerPosition);
    }

    private void checkWritable() {
        if (closed) {
            throw new IllegalStateException("cannot append to a closed builder: " + this);
        }
        if (isFinished()) {
            throw new IllegalStateException("cannot append to a finished builder: " + this);
        }
    }
}
