package io.sluice.buffers;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.BufferOverflowException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A fixed-size piece of memory: off-heap (a direct {@link ByteBuffer}) for network buffers, or heap (a wrapped
 * {@code byte[]}) for small events. Every access is bounds-checked and multi-byte values are big-endian.
 *
 * <p>Threads: a segment has one owner at a time (the pool while free, then whoever holds the buffer over it); it
 * does no locking of its own. {@link #free()} is called by the owning pool while no one else uses the segment;
 * afterwards every access throws {@link IllegalStateException}. Views made by {@link #wrap(int, int)} share the
 * memory and must not be used once the segment has gone back to its pool.
 *
 * <p>Two views of the whole segment are made once, with the segment, so that the hot I/O paths allocate no view per
 * buffer: {@link #ownerView()} for the segment's current owner, who may move its position and limit, and
 * {@link #sharedView()} for readers that use absolute indices only (the network stack sending committed bytes while
 * a producer writes further on).
 */
public final class MemorySegment {

    /**
     * Copies of at most this many bytes from a heap array go through {@link #putSmall}; longer ones through the
     * array bulk copy, whose fixed set-up costs more than the one or two 8-byte moves of a record this small, and
     * less than the moves of a longer one. The producer thread's nanoseconds per record in the CPU line of the JMH
     * benchmark {@code RecordThroughputBenchmark.records} ({@code -p recordBytes=8,16,24,100}) show both sides of the
     * bound.
     */
    static final int SMALL_COPY_BYTES = 16;

    /** Reads 8 bytes of a byte array as one big-endian long (the order of every segment). */
    private static final VarHandle LONG_BIG_ENDIAN =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** The memory; null once freed, which is how every accessor detects a freed segment with one field read. */
    private ByteBuffer memory;

    /** See {@link #ownerView()}: position and limit belong to the segment's current owner; null for heap segments. */
    private final ByteBuffer ownerView;

    /** See {@link #sharedView()}: position, limit and order are never changed; null for heap segments. */
    private final ByteBuffer sharedView;

    private final int size;

    private final boolean offHeap;

    private MemorySegment(ByteBuffer memory) {
        this.memory = memory.order(ByteOrder.BIG_ENDIAN);
        this.size = memory.capacity();
        this.offHeap = memory.isDirect();
        // duplicate() starts big-endian, with position 0 and limit = capacity = size. Heap segments (events: small,
        // short-lived, many) make their views on demand instead of carrying two.
        this.ownerView = offHeap ? this.memory.duplicate() : null;
        this.sharedView = offHeap ? this.memory.duplicate() : null;
    }

    /** Allocates {@code size} bytes of direct (off-heap) memory; released by {@link #free()}. */
    public static MemorySegment allocateOffHeap(int size) {
        if (size <= 0) {
            throw new IllegalArgumentException("segment size must be positive, was " + size);
        }
        return new MemorySegment(ByteBuffer.allocateDirect(size));
    }

    /** A heap segment over {@code bytes} (shared, not copied); used for events. */
    public static MemorySegment wrap(byte[] bytes) {
        return new MemorySegment(ByteBuffer.wrap(bytes));
    }

    /** The size in bytes (also after {@link #free()}). */
    public int size() {
        return size;
    }

    public boolean isOffHeap() {
        return offHeap;
    }

    public boolean isFreed() {
        return memory == null;
    }

    /**
     * Releases the memory (direct memory at once; heap memory is left to the GC). Idempotent. Afterwards every
     * access throws {@link IllegalStateException}. Only the segment's owner may call this, when nobody else uses it.
     */
    public void free() {
        ByteBuffer released = memory;
        if (released == null) {
            return;
        }
        memory = null;
        if (offHeap) {
            DirectMemoryReleaser.release(released);
        }
    }

    public byte get(int index) {
        return memory(index, 1).get(index);
    }

    public void put(int index, byte b) {
        memory(index, 1).put(index, b);
    }

    /** Reads a big-endian int at {@code index}. */
    public int getInt(int index) {
        return memory(index, Integer.BYTES).getInt(index);
    }

    /** Writes a big-endian int at {@code index}. */
    public void putInt(int index, int value) {
        memory(index, Integer.BYTES).putInt(index, value);
    }

    /** Reads a big-endian long at {@code index}. */
    public long getLong(int index) {
        return memory(index, Long.BYTES).getLong(index);
    }

    /** Writes a big-endian long at {@code index}. */
    public void putLong(int index, long value) {
        memory(index, Long.BYTES).putLong(index, value);
    }

    /** Copies {@code length} bytes starting at {@code offset} into {@code dst[dstOffset..]}. */
    public void get(int offset, byte[] dst, int dstOffset, int length) {
        ByteBuffer mem = memory(offset, length);
        checkArrayRange(dst.length, dstOffset, length);
        mem.get(offset, dst, dstOffset, length);
    }

    /** Copies {@code length} bytes from {@code src[srcOffset..]} to this segment starting at {@code offset}. */
    public void put(int offset, byte[] src, int srcOffset, int length) {
        ByteBuffer mem = memory(offset, length);
        checkArrayRange(src.length, srcOffset, length);
        mem.put(offset, src, srcOffset, length);
    }

    /**
     * Copies {@code numBytes} bytes starting at {@code offset} into {@code target} at its position and advances
     * that position. Throws {@link BufferOverflowException} if {@code target} has fewer bytes remaining.
     */
    public void get(int offset, ByteBuffer target, int numBytes) {
        ByteBuffer mem = memory(offset, numBytes);
        int targetPosition = target.position();
        if (target.remaining() < numBytes) {
            throw new BufferOverflowException();
        }
        target.put(targetPosition, mem, offset, numBytes);
        target.position(targetPosition + numBytes);
    }

    /**
     * Copies {@code numBytes} bytes from {@code source} at its position to this segment starting at {@code offset}
     * and advances the source's position. Throws {@link BufferUnderflowException} if {@code source} has fewer
     * bytes remaining.
     */
    public void put(int offset, ByteBuffer source, int numBytes) {
        ByteBuffer mem = memory(offset, numBytes);
        int sourcePosition = source.position();
        if (source.remaining() < numBytes) {
            throw new BufferUnderflowException();
        }
        copyIn(mem, offset, source, sourcePosition, numBytes);
        source.position(sourcePosition + numBytes);
    }

    /**
     * Writes {@code prefix} as a big-endian int at {@code offset}, followed by {@code source}'s remaining bytes,
     * leaving the source's position where it was: a length-prefixed record in one call, with one bounds check for
     * both parts (the small-record write path).
     *
     * @return the number of bytes written, 4 + the source's remaining bytes
     */
    public int putPrefixed(int offset, int prefix, ByteBuffer source) {
        int sourcePosition = source.position();
        int numBytes = source.limit() - sourcePosition;
        putPrefixed(memory(offset, Integer.BYTES + numBytes), offset, prefix, source, sourcePosition, numBytes);
        return Integer.BYTES + numBytes;
    }

    /**
     * {@link #putPrefixed(int, int, ByteBuffer)} into {@code mem}, a segment's memory, of the {@code numBytes}
     * bytes of {@code source} from {@code sourcePosition}; the caller checked that {@code [offset, offset + 4 +
     * numBytes)} lies within the segment.
     */
    static void putPrefixed(ByteBuffer mem, int offset, int prefix, ByteBuffer source, int sourcePosition,
                            int numBytes) {
        mem.putInt(offset, prefix);
        copyIn(mem, offset + Integer.BYTES, source, sourcePosition, numBytes);
    }

    /**
     * The memory itself, for the {@link BufferBuilder} over this segment to keep and write into without going
     * through this object on every record. Safe because a builder holds a reference to its buffer until it is
     * closed, and a segment is freed only once it is back in its pool (or comes back to a destroyed one), that is
     * after its last reference was released; the builder checks every range against its capacity, which never
     * exceeds {@link #size()}. Why: with a thousand subpartitions written round robin, each builder's state is
     * out of the level-1 cache by the time its next record comes, and every object between the builder and the
     * bytes is one more dependent miss per record; the producer thread's nanoseconds per record in the CPU line of
     * the JMH benchmark {@code ManyChannelsBenchmark.records} ({@code -p shape=1x1000}) show that cost.
     *
     * @throws IllegalStateException if the segment was freed
     */
    ByteBuffer writerMemory() {
        return memory(0, 0);
    }

    /**
     * Copies {@code numBytes} bytes of {@code source} from {@code sourcePosition} into {@code mem} at {@code offset},
     * leaving the source's position alone (callers that consume the bytes advance it). The caller checked both
     * ranges.
     */
    static void copyIn(ByteBuffer mem, int offset, ByteBuffer source, int sourcePosition, int numBytes) {
        // The small-record case is tested first, on its own: it is the common case, and its copy is the cheapest.
        if (numBytes <= SMALL_COPY_BYTES && source.hasArray()) {
            putSmall(mem, offset, source.array(), source.arrayOffset() + sourcePosition, numBytes);
        } else if (source.hasArray()) {
            // The array form skips the source buffer's own checks and its memory-session look-up.
            mem.put(offset, source.array(), source.arrayOffset() + sourcePosition, numBytes);
        } else {
            mem.put(offset, source, sourcePosition, numBytes);
        }
    }

    /**
     * Copies a few bytes of a heap array into the memory, 8 at a time: for a small record the bulk copy's set-up
     * (memory-session checks, a native copy call) costs more than the copy itself. The caller checked both ranges.
     */
    private static void putSmall(ByteBuffer mem, int offset, byte[] source, int sourceOffset, int numBytes) {
        // Straight-line rather than a loop of unknown trip count: up to two 8-byte moves, then the odd bytes.
        int i = 0;
        if (numBytes >= Long.BYTES) {
            mem.putLong(offset, (long) LONG_BIG_ENDIAN.get(source, sourceOffset));
            i = Long.BYTES;
            if (numBytes >= 2 * Long.BYTES) {
                mem.putLong(offset + Long.BYTES, (long) LONG_BIG_ENDIAN.get(source, sourceOffset + Long.BYTES));
                i = 2 * Long.BYTES;
            }
        }
        for (; i < numBytes; i++) {
            mem.put(offset + i, source[sourceOffset + i]);
        }
    }

    /** Copies {@code numBytes} bytes from this segment at {@code offset} into {@code target} at its offset. */
    public void copyTo(int offset, MemorySegment target, int targetOffset, int numBytes) {
        ByteBuffer mem = memory(offset, numBytes);
        target.memory(targetOffset, numBytes).put(targetOffset, mem, offset, numBytes);
    }

    /**
     * A fresh big-endian view of {@code [offset, offset + length)} sharing this segment's memory: position 0,
     * limit = capacity = {@code length}. Used for zero-copy I/O; valid only while the caller owns the segment.
     */
    public ByteBuffer wrap(int offset, int length) {
        return memory(offset, length).slice(offset, length).order(ByteOrder.BIG_ENDIAN);
    }

    /**
     * The owner's view of the whole segment, with its position set to 0 and its limit to {@link #size()} (its order
     * is big-endian; leave it so). For I/O by the segment's current owner (a decoder filling a received buffer, a
     * file read into a buffer), who may move the position and limit until it passes the segment on; nobody else may
     * use the view meanwhile, and nobody may keep it after passing the segment on. An off-heap segment returns the
     * same object on every call and allocates nothing (the view is made with the segment); a heap segment returns a
     * new view on each call.
     *
     * @throws IllegalStateException if the segment was freed
     */
    public ByteBuffer ownerView() {
        ByteBuffer mem = memory(0, 0);
        if (ownerView == null) {
            return mem.duplicate();
        }
        ownerView.clear();
        return ownerView;
    }

    /**
     * The shared view of the whole segment, for readers that use absolute indices only and never change its
     * position (0), limit ({@link #size()}) or order (big-endian). Several readers may use it at once, also while
     * the owner writes other bytes of the segment: the network stack wraps the committed bytes of a buffer being
     * sent in it, without a view object per buffer. Valid only while the caller holds the buffer over the segment.
     * An off-heap segment returns the same object on every call and allocates nothing (the view is made with the
     * segment); a heap segment returns a new view on each call.
     *
     * @throws IllegalStateException if the segment was freed
     */
    public ByteBuffer sharedView() {
        ByteBuffer mem = memory(0, 0);
        return sharedView != null ? sharedView : mem.duplicate();
    }

    @Override
    public String toString() {
        return "MemorySegment[" + size + " bytes, " + (offHeap ? "off-heap" : "heap") + (isFreed() ? ", freed]" : "]");
    }

    /**
     * The backing memory after checking that {@code [offset, offset + length)} lies inside the segment and that
     * the segment is not freed. Hot path: one field read and two compares; the message is built only on failure.
     */
    private ByteBuffer memory(int offset, int length) {
        ByteBuffer mem = memory;
        if (mem == null) {
            throw new IllegalStateException("segment freed: " + size + " bytes, access at offset " + offset);
        }
        if ((offset | length) < 0 || offset > size - length) {
            throw outOfBounds(offset, length);
        }
        return mem;
    }

    private IndexOutOfBoundsException outOfBounds(int offset, int length) {
        return new IndexOutOfBoundsException(
                "segment access out of bounds: offset " + offset + ", length " + length + ", segment size " + size);
    }

    private static void checkArrayRange(int arrayLength, int arrayOffset, int length) {
        if ((arrayOffset | length) < 0 || arrayOffset > arrayLength - length) {
            throw new IndexOutOfBoundsException(
                    "array range out of bounds: offset " + arrayOffset + ", length " + length
                            + ", array length " + arrayLength);
        }
    }
}
