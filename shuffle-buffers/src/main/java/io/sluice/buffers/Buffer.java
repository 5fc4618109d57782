package io.sluice.buffers;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;

/**
 * A reference-counted view over one {@link MemorySegment}: a reader index, a writer index (the size) and a flag
 * telling data from an event.
 *
 * <p>Ownership: whoever creates or receives a buffer holds one reference and must release it with
 * {@link #recycleBuffer()} exactly once; {@link #retainBuffer()} adds a reference for a second holder. When the
 * last reference goes, the segment goes to the {@link BufferRecycler}. A read-only slice ({@link #readOnlySlice()})
 * is a second view that shares the original's counter and does NOT add a reference: retain it before handing it
 * to a holder that will recycle it.
 *
 * <p>Threads: the reference count is atomic (any thread). Reader index, size and the data/event flag are plain
 * fields owned by the current holder; hand the buffer over through a thread-safe channel (queue, future).
 */
public final class Buffer {

    private final ReferenceCount referenceCount;

    /** Where this view starts in the segment; non-zero for slices. */
    private final int segmentOffset;

    private final int maxCapacity;

    private final boolean readOnly;

    private boolean isBuffer;

    private int readerIndex;

    /** The writer index: bytes [0, size) of this view are valid. */
    private int size;

    /** A data buffer of size 0 over the whole segment; this object holds the first reference. */
    public Buffer(MemorySegment segment, BufferRecycler recycler) {
        this(segment, recycler, true, 0);
    }

    /**
     * A buffer over the whole segment holding the first reference; {@code isBuffer} false marks an event.
     * {@code size} bytes are valid.
     */
    public Buffer(MemorySegment segment, BufferRecycler recycler, boolean isBuffer, int size) {
        this(new ReferenceCount(segment, recycler), 0, segment.size(), isBuffer, false);
        setSize(size);
    }

    private Buffer(ReferenceCount referenceCount, int segmentOffset, int maxCapacity, boolean isBuffer,
                   boolean readOnly) {
        this.referenceCount = referenceCount;
        this.segmentOffset = segmentOffset;
        this.maxCapacity = maxCapacity;
        this.isBuffer = isBuffer;
        this.readOnly = readOnly;
    }

    /** True for data, false for an event. */
    public boolean isBuffer() {
        return isBuffer;
    }

    /** Marks this buffer as an event. Not allowed on a read-only slice. */
    public void tagAsEvent() {
        checkWritable();
        isBuffer = false;
    }

    public MemorySegment getMemorySegment() {
        return referenceCount.segment();
    }

    /** Where this view starts in the segment (non-zero for slices). */
    public int getMemorySegmentOffset() {
        return segmentOffset;
    }

    public BufferRecycler getRecycler() {
        return referenceCount.recycler();
    }

    /** The largest size this view can have: the segment size, or the length of a slice. */
    public int getMaxCapacity() {
        return maxCapacity;
    }

    public int getReaderIndex() {
        return readerIndex;
    }

    /** Moves the reader index; must stay within {@code [0, size]}. Allowed on slices (each has its own index). */
    public void setReaderIndex(int readerIndex) {
        if (readerIndex < 0 || readerIndex > size) {
            throw new IndexOutOfBoundsException(
                    "reader index " + readerIndex + " outside [0, " + size + "] (size) of " + this);
        }
        this.readerIndex = readerIndex;
    }

    /** The writer index: bytes {@code [0, size)} are valid. */
    public int getSize() {
        return size;
    }

    /**
     * Sets the writer index; must stay within {@code [readerIndex, maxCapacity]}. A read-only slice throws
     * {@link ReadOnlyBufferException}.
     */
    public void setSize(int writerIndex) {
        checkWritable();
        if (writerIndex < readerIndex || writerIndex > maxCapacity) {
            throw new IndexOutOfBoundsException("size " + writerIndex + " outside [" + readerIndex + ", "
                    + maxCapacity + "] (reader index, max capacity) of " + this);
        }
        this.size = writerIndex;
    }

    /** {@code size - readerIndex}. */
    public int readableBytes() {
        return size - readerIndex;
    }

    /**
     * A fresh view of the readable bytes {@code [readerIndex, size)}; moving its position or limit changes nothing
     * here. Read-only for read-only slices. Valid while the caller holds a reference.
     */
    public ByteBuffer getNioBufferReadable() {
        return getNioBuffer(readerIndex, size - readerIndex);
    }

    /** A fresh view of {@code [index, index + length)} of this buffer, within its max capacity. */
    public ByteBuffer getNioBuffer(int index, int length) {
        checkAccessible();
        checkRange(index, length);
        ByteBuffer view = referenceCount.segment().wrap(segmentOffset + index, length);
        return readOnly ? view.asReadOnlyBuffer() : view;
    }

    /**
     * The segment's {@linkplain MemorySegment#ownerView() owner view} with its position and limit around
     * {@code [index, index + length)} of this buffer: for I/O by the segment's current owner (filling a received
     * buffer, reading a file into it, writing it to a file), without a view object per buffer. The view is writable
     * also for a read-only buffer, and it is the segment's one owner view: valid until the next call for any buffer
     * over the same segment, and not to be kept once the buffer is passed on.
     */
    public ByteBuffer getOwnerView(int index, int length) {
        checkAccessible();
        checkRange(index, length);
        int start = segmentOffset + index;
        ByteBuffer view = referenceCount.segment().ownerView();
        view.position(start).limit(start + length);
        return view;
    }

    /**
     * A read-only view of {@code [readerIndex, size)} with its own indices, sharing this buffer's reference count.
     * Does NOT retain: call {@link #retainBuffer()} on the slice if it gets its own owner.
     */
    public Buffer readOnlySlice() {
        return readOnlySlice(readerIndex, size - readerIndex);
    }

    /** A read-only view of {@code [index, index + length)} of this buffer (see {@link #readOnlySlice()}). */
    public Buffer readOnlySlice(int index, int length) {
        checkAccessible();
        checkRange(index, length);
        Buffer slice = new Buffer(referenceCount, segmentOffset + index, length, isBuffer, true);
        slice.size = length;
        return slice;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    /** Adds a reference (shared with every slice); returns this. Fails on a recycled buffer. */
    public Buffer retainBuffer() {
        referenceCount.retain();
        return this;
    }

    /**
     * Drops a reference; the last one hands the segment to the recycler, exactly once. Releasing a buffer that is
     * already recycled throws {@link IllegalStateException} ("illegal reference count ...").
     */
    public void recycleBuffer() {
        referenceCount.release();
    }

    public boolean isRecycled() {
        return referenceCount.get() == 0;
    }

    /** The current number of references (shared with slices). */
    public int refCnt() {
        return referenceCount.get();
    }

    @Override
    public String toString() {
        return (isBuffer ? "Buffer" : "Event") + (readOnly ? "[read-only slice" : "[") + " offset " + segmentOffset
                + ", reader " + readerIndex + ", size " + size + ", capacity " + maxCapacity
                + ", refCnt " + referenceCount.get() + "]";
    }

    private void checkWritable() {
        if (readOnly) {
            throw new ReadOnlyBufferException();
        }
    }

    private void checkAccessible() {
        if (referenceCount.get() <= 0) {
            throw new IllegalStateException("buffer already recycled: " + this);
        }
    }

    private void checkRange(int index, int length) {
        if ((index | length) < 0 || index > maxCapacity - length) {
            throw new IndexOutOfBoundsException("range [" + index + ", " + index + " + " + length
                    + ") outside max capacity " + maxCapacity + " of " + this);
        }
    }
}
