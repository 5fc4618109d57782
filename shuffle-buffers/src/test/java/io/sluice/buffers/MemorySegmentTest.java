package io.sluice.buffers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.BufferOverflowException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bounds-checked, big-endian access to off-heap and heap segments, and their release. */
class MemorySegmentTest {

    private static MemorySegment segment(boolean offHeap, int size) {
        return offHeap ? MemorySegment.allocateOffHeap(size) : MemorySegment.wrap(new byte[size]);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void intsAndLongs_areStoredBigEndian(boolean offHeap) {
        MemorySegment segment = segment(offHeap, 16);

        segment.putInt(0, 0x01020304);
        segment.putLong(8, 0x1112131415161718L);

        assertEquals(offHeap, segment.isOffHeap());
        assertEquals(16, segment.size());
        assertEquals(0x01, segment.get(0));
        assertEquals(0x04, segment.get(3));
        assertEquals(0x01020304, segment.getInt(0));
        assertEquals(0x11, segment.get(8));
        assertEquals(0x18, segment.get(15));
        assertEquals(0x1112131415161718L, segment.getLong(8));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void byteArraysAndByteBuffers_copyExactlyAndAdvancePositions(boolean offHeap) {
        MemorySegment segment = segment(offHeap, 32);
        segment.put(4, new byte[] {9, 1, 2, 3, 9}, 1, 3);

        byte[] out = new byte[5];
        segment.get(4, out, 2, 3);
        assertArrayEquals(new byte[] {0, 0, 1, 2, 3}, out);

        ByteBuffer source = ByteBuffer.wrap(new byte[] {7, 8, 9, 10});
        source.position(1);
        segment.put(10, source, 2);
        assertEquals(3, source.position());
        assertEquals(8, segment.get(10));
        assertEquals(9, segment.get(11));

        ByteBuffer target = ByteBuffer.allocateDirect(8);
        target.position(5);
        segment.get(10, target, 2);
        assertEquals(7, target.position());
        assertEquals(8, target.get(5));
        assertEquals(9, target.get(6));

        MemorySegment other = MemorySegment.allocateOffHeap(8);
        segment.copyTo(4, other, 6, 2);
        assertEquals(1, other.get(6));
        assertEquals(2, other.get(7));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void byteBufferCopies_withTooFewBytes_throwAndMoveNothing(boolean offHeap) {
        MemorySegment segment = segment(offHeap, 32);
        ByteBuffer shortSource = ByteBuffer.allocate(3);
        ByteBuffer smallTarget = ByteBuffer.allocate(3);

        assertThrows(BufferUnderflowException.class, () -> segment.put(0, shortSource, 4));
        assertThrows(BufferOverflowException.class, () -> segment.get(0, smallTarget, 4));
        assertEquals(0, shortSource.position());
        assertEquals(0, smallTarget.position());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void outOfBoundsAccess_namesOffsetLengthAndSize(boolean offHeap) {
        MemorySegment segment = segment(offHeap, 64);

        IndexOutOfBoundsException intPastEnd = assertThrows(IndexOutOfBoundsException.class, () -> segment.getInt(61));
        assertEquals("segment access out of bounds: offset 61, length 4, segment size 64", intPastEnd.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> segment.get(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> segment.putLong(57, 1L));
        assertThrows(IndexOutOfBoundsException.class, () -> segment.put(60, new byte[8], 0, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> segment.get(0, new byte[4], 2, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> segment.wrap(32, 33));
        assertThrows(IndexOutOfBoundsException.class,
                () -> segment.copyTo(0, MemorySegment.allocateOffHeap(8), 4, 8));
        // the largest legal accesses still work
        segment.putInt(60, 42);
        assertEquals(42, segment.getInt(60));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void wrap_isAFreshBigEndianViewSharingTheMemory(boolean offHeap) {
        MemorySegment segment = segment(offHeap, 32);
        segment.putInt(8, 0xCAFEBABE);

        ByteBuffer view = segment.wrap(8, 12);

        assertEquals(0, view.position());
        assertEquals(12, view.limit());
        assertEquals(12, view.capacity());
        assertEquals(ByteOrder.BIG_ENDIAN, view.order());
        assertEquals(0xCAFEBABE, view.getInt());
        view.put(4, (byte) 77);
        assertEquals(77, segment.get(12));
        assertEquals(offHeap, view.isDirect());
    }

    @Test
    void ownerView_ofAnOffHeapSegment_isOneObject_clearedOnEachCall_sharingTheMemory() {
        MemorySegment segment = MemorySegment.allocateOffHeap(32);
        segment.putInt(8, 0xCAFEBABE);

        ByteBuffer view = segment.ownerView();
        view.position(8).limit(12);
        ByteBuffer again = segment.ownerView();

        assertSame(view, again, "the owner view is made once, with the segment");
        assertEquals(0, again.position());
        assertEquals(32, again.limit());
        assertEquals(32, again.capacity());
        assertEquals(ByteOrder.BIG_ENDIAN, again.order());
        assertEquals(0xCAFEBABE, again.getInt(8));
        again.position(20);
        again.put((byte) 5);
        assertEquals(5, segment.get(20));
    }

    @Test
    void sharedView_ofAnOffHeapSegment_isOneObject_overTheWholeSegment_apartFromTheOwnerView() {
        MemorySegment segment = MemorySegment.allocateOffHeap(32);
        segment.putLong(24, 0x0102030405060708L);

        ByteBuffer shared = segment.sharedView();
        ByteBuffer owner = segment.ownerView();
        owner.position(4).limit(8);

        assertSame(shared, segment.sharedView(), "the shared view is made once, with the segment");
        assertNotSame(shared, owner, "moving the owner view must not move the shared one");
        assertEquals(0, shared.position());
        assertEquals(32, shared.limit());
        assertTrue(shared.isDirect());
        assertEquals(0x0102030405060708L, shared.getLong(24));
    }

    @Test
    void views_ofAHeapSegment_areFreshOnEachCall() {
        MemorySegment segment = MemorySegment.wrap(new byte[16]);
        segment.putInt(0, 99);

        ByteBuffer owner = segment.ownerView();
        owner.position(3);

        assertNotSame(owner, segment.ownerView());
        assertNotSame(segment.sharedView(), segment.sharedView());
        assertEquals(0, segment.ownerView().position());
        assertEquals(99, segment.sharedView().getInt(0));
        assertEquals(16, segment.sharedView().limit());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void free_isIdempotent_andEveryLaterAccessThrows(boolean offHeap) {
        MemorySegment segment = segment(offHeap, 16);
        assertFalse(segment.isFreed());

        segment.free();
        segment.free();

        assertTrue(segment.isFreed());
        assertEquals(16, segment.size());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> segment.get(0));
        assertTrue(e.getMessage().startsWith("segment freed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> segment.putInt(0, 1));
        assertThrows(IllegalStateException.class, () -> segment.getLong(0));
        assertThrows(IllegalStateException.class, () -> segment.wrap(0, 4));
        assertThrows(IllegalStateException.class, segment::ownerView);
        assertThrows(IllegalStateException.class, segment::sharedView);
        assertThrows(IllegalStateException.class, () -> segment.get(0, new byte[2], 0, 2));
        assertThrows(IllegalStateException.class, () -> segment.put(0, ByteBuffer.allocate(2), 2));
        assertThrows(IllegalStateException.class, () -> segment.copyTo(0, MemorySegment.allocateOffHeap(4), 0, 4));
        assertThrows(IllegalStateException.class,
                () -> MemorySegment.allocateOffHeap(4).copyTo(0, segment, 0, 4));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1})
    void allocateOffHeap_rejectsNonPositiveSizes(int size) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> MemorySegment.allocateOffHeap(size));
        assertEquals("segment size must be positive, was " + size, e.getMessage());
    }

    /**
     * Small copies from heap buffers take a path of their own (8 bytes at a time): every length around it, from a
     * sliced source (non-zero array offset) in little-endian order, lands byte for byte at an odd offset, advances
     * the source by exactly the bytes copied and leaves the neighbouring bytes alone.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100})
    void putFromHeapSlice_copiesExactlyTheBytes_inOrder(int length) {
        MemorySegment segment = filledSegment();
        byte[] backing = numberedBytes(length + 10);
        ByteBuffer source = slicedSource(backing, length);

        segment.put(13, source, length);

        assertEquals(2 + length, source.position());
        for (int i = 0; i < 256; i++) {
            byte expected = i >= 13 && i < 13 + length ? backing[3 + 2 + i - 13] : (byte) 0x5A;
            assertEquals(expected, segment.get(i), "byte " + i + " after copying " + length + " bytes");
        }
        segment.free();
    }

    /**
     * The small-record path (a prefix, then a record of up to 16 bytes copied without a loop): every length around
     * its branches, from a sliced little-endian heap source, lands as a big-endian prefix and then the bytes in
     * order at an odd offset, leaves the source's position where it was and the neighbouring bytes alone.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 4, 7, 8, 9, 12, 15, 16, 17, 24, 100})
    void putPrefixed_writesTheBigEndianPrefix_thenExactlyTheBytes(int length) {
        MemorySegment segment = filledSegment();
        byte[] backing = numberedBytes(length + 10);
        ByteBuffer source = slicedSource(backing, length);
        source.limit(2 + length);

        int written = segment.putPrefixed(13, 0x01020304, source);

        assertEquals(4 + length, written);
        assertEquals(2, source.position(), "the source's position stays where it was");
        assertEquals(0x01020304, segment.getInt(13));
        for (int i = 0; i < 256; i++) {
            if (i >= 13 && i < 17) {
                continue;
            }
            byte expected = i >= 17 && i < 17 + length ? backing[3 + 2 + i - 17] : (byte) 0x5A;
            assertEquals(expected, segment.get(i), "byte " + i + " after a prefixed record of " + length + " bytes");
        }
        segment.free();
    }

    /** 256 bytes off heap, each 0x5A, so that a byte written where it should not be shows. */
    private static MemorySegment filledSegment() {
        MemorySegment segment = MemorySegment.allocateOffHeap(256);
        for (int i = 0; i < 256; i++) {
            segment.put(i, (byte) 0x5A);
        }
        return segment;
    }

    private static byte[] numberedBytes(int count) {
        byte[] bytes = new byte[count];
        for (int i = 0; i < count; i++) {
            bytes[i] = (byte) (i * 31 + 7);
        }
        return bytes;
    }

    /**
     * {@code backing} from index 3, as a little-endian slice (a non-zero array offset) positioned at 2, with
     * {@code length + 3} bytes remaining: the source shape the small-copy paths must get right.
     */
    private static ByteBuffer slicedSource(byte[] backing, int length) {
        ByteBuffer source = ByteBuffer.wrap(backing, 3, length + 5).slice().order(ByteOrder.LITTLE_ENDIAN);
        source.position(2);
        return source;
    }
}
