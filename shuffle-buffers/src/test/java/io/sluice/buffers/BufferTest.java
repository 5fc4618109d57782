package io.sluice.buffers;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;

import org.junit.jupiter.api.Test;

/** Reference counting, indices, slices and NIO views of {@link Buffer}. */
class BufferTest {

    private final BufferRecycler recycler = mock(BufferRecycler.class);

    private final MemorySegment segment = MemorySegment.allocateOffHeap(64);

    private Buffer bufferWithBytes(int count) {
        for (int i = 0; i < count; i++) {
            segment.put(i, (byte) i);
        }
        return new Buffer(segment, recycler, true, count);
    }

    // BUF-1
    @Test
    void referenceCount_returnsTheSegmentExactlyOnce_andRejectsAnExtraRelease() {
        Buffer buffer = new Buffer(segment, recycler);
        assertFalse(buffer.isRecycled());
        assertEquals(1, buffer.refCnt());

        assertSame(buffer, buffer.retainBuffer());
        assertEquals(2, buffer.refCnt());
        buffer.recycleBuffer();
        verify(recycler, never()).recycle(any());
        assertFalse(buffer.isRecycled());
        buffer.recycleBuffer();

        assertTrue(buffer.isRecycled());
        assertEquals(0, buffer.refCnt());
        verify(recycler, times(1)).recycle(any());
        verify(recycler).recycle(segment);
        IllegalStateException twice = assertThrows(IllegalStateException.class, buffer::recycleBuffer);
        assertTrue(twice.getMessage().startsWith("illegal reference count 0"), twice.getMessage());
        assertThrows(IllegalStateException.class, buffer::retainBuffer);
        verify(recycler, times(1)).recycle(any());
    }

    @Test
    void ownerView_isTheSegmentsOneView_positionedOnTheRangeOfThisBuffer() {
        Buffer buffer = bufferWithBytes(32);
        Buffer slice = buffer.readOnlySlice(8, 16);

        ByteBuffer view = slice.getOwnerView(2, 4);

        assertSame(segment.ownerView(), slice.getOwnerView(2, 4), "one view per segment, no object per call");
        assertEquals(10, view.position());
        assertEquals(14, view.limit());
        assertEquals(10, view.get());
        view.put((byte) 99);
        assertEquals(99, segment.get(11));
        assertThrows(IndexOutOfBoundsException.class, () -> slice.getOwnerView(10, 7));
        buffer.recycleBuffer();
        assertThrows(IllegalStateException.class, () -> slice.getOwnerView(0, 1));
    }

    // BUF-1: a recycled buffer gives no more views of memory that now belongs to someone else
    @Test
    void recycledBuffer_refusesViewsAndSlices() {
        Buffer buffer = bufferWithBytes(8);
        buffer.recycleBuffer();

        assertThrows(IllegalStateException.class, buffer::getNioBufferReadable);
        assertThrows(IllegalStateException.class, buffer::readOnlySlice);
    }

    // BUF-2
    @Test
    void readOnlySlice_hasItsOwnIndices_andSharesTheReferenceCount() {
        Buffer buffer = bufferWithBytes(10);
        buffer.setReaderIndex(2);

        Buffer slice = buffer.readOnlySlice();

        assertTrue(slice.isReadOnly());
        assertFalse(buffer.isReadOnly());
        assertEquals(0, slice.getReaderIndex());
        assertEquals(8, slice.getSize());
        assertEquals(8, slice.getMaxCapacity());
        assertEquals(2, slice.getMemorySegmentOffset());
        assertSame(segment, slice.getMemorySegment());
        assertSame(recycler, slice.getRecycler());
        assertEquals(2, slice.getNioBufferReadable().get(0));
        slice.setReaderIndex(3);
        assertEquals(2, buffer.getReaderIndex());
        assertEquals(5, slice.readableBytes());
        // no retain by slicing; the count is shared
        assertEquals(1, buffer.refCnt());
        slice.retainBuffer();
        assertEquals(2, buffer.refCnt());
        buffer.recycleBuffer();
        verify(recycler, never()).recycle(any());
        slice.recycleBuffer();
        verify(recycler, times(1)).recycle(any());
        assertTrue(buffer.isRecycled());
    }

    // BUF-2
    @Test
    void sliceOfSlice_addressesTheOriginalSegment() {
        Buffer buffer = bufferWithBytes(20);

        Buffer inner = buffer.readOnlySlice(4, 12).readOnlySlice(3, 5);

        assertEquals(7, inner.getMemorySegmentOffset());
        assertEquals(5, inner.getSize());
        ByteBuffer view = inner.getNioBufferReadable();
        for (int i = 0; i < 5; i++) {
            assertEquals(7 + i, view.get(i));
        }
        inner.retainBuffer().recycleBuffer();
        assertEquals(1, buffer.refCnt());
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.readOnlySlice(4, 12).readOnlySlice(10, 3));
    }

    // BUF-2
    @Test
    void writesThroughAReadOnlySlice_areRejected() {
        Buffer slice = bufferWithBytes(10).readOnlySlice();

        assertThrows(ReadOnlyBufferException.class, () -> slice.setSize(5));
        assertThrows(ReadOnlyBufferException.class, slice::tagAsEvent);
        assertThrows(ReadOnlyBufferException.class, () -> slice.getNioBufferReadable().put(0, (byte) 1));
        assertThrows(ReadOnlyBufferException.class, () -> slice.getNioBuffer(0, 2).put((byte) 1));
        assertEquals(0, segment.get(0));
    }

    // BUF-2
    @Test
    void dataAndEventFlags_areReportedAndCarriedIntoSlices() {
        Buffer data = new Buffer(segment, recycler);
        Buffer event = new Buffer(MemorySegment.wrap(new byte[4]), BufferRecycler.DISCARD, false, 4);

        assertTrue(data.isBuffer());
        assertFalse(event.isBuffer());
        assertFalse(event.readOnlySlice().isBuffer());
        data.tagAsEvent();
        assertFalse(data.isBuffer());
        assertFalse(data.readOnlySlice().isBuffer());
    }

    // BUF-2
    @Test
    void nioViews_areFreshMatchTheSize_andMovingThemChangesNothing() {
        Buffer buffer = bufferWithBytes(10);
        buffer.setReaderIndex(3);

        ByteBuffer first = buffer.getNioBufferReadable();
        assertEquals(0, first.position());
        assertEquals(7, first.remaining());
        assertEquals(3, first.get());
        first.position(5);
        first.limit(6);

        ByteBuffer second = buffer.getNioBufferReadable();
        assertEquals(0, second.position());
        assertEquals(7, second.limit());
        assertEquals(3, buffer.getReaderIndex());
        assertEquals(10, buffer.getSize());

        buffer.setSize(12);
        assertEquals(9, buffer.getNioBufferReadable().remaining());
        ByteBuffer range = buffer.getNioBuffer(60, 4);
        assertEquals(4, range.capacity());
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.getNioBuffer(61, 4));
    }

    @Test
    void indices_areBoundsChecked() {
        Buffer buffer = new Buffer(segment, recycler, true, 10);
        buffer.setReaderIndex(4);

        IndexOutOfBoundsException belowReader = assertThrows(IndexOutOfBoundsException.class, () -> buffer.setSize(3));
        assertTrue(belowReader.getMessage().startsWith("size 3 outside [4, 64]"), belowReader.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.setSize(65));
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.setReaderIndex(11));
        assertThrows(IndexOutOfBoundsException.class, () -> buffer.setReaderIndex(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> new Buffer(segment, recycler, true, 65));
        buffer.setSize(64);
        assertEquals(60, buffer.readableBytes());
        assertEquals(64, buffer.getMaxCapacity());
    }
}
