package io.sluice.buffers;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

/** The writer/reader pair over one segment: appends, commits, builds, finishing, trimming and the recycle rule. */
class BufferBuilderAndConsumerTest {

    private static final int CAPACITY = 32;

    private final BufferRecycler recycler = mock(BufferRecycler.class);

    private final BufferBuilder builder = new BufferBuilder(MemorySegment.allocateOffHeap(CAPACITY), recycler);

    private static ByteBuffer bytes(int from, int count) {
        ByteBuffer buffer = ByteBuffer.allocate(count);
        for (int i = 0; i < count; i++) {
            buffer.put((byte) (from + i));
        }
        return buffer.flip();
    }

    private static byte[] contentOf(Buffer buffer) {
        ByteBuffer view = buffer.getNioBufferReadable();
        byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }

    private static byte[] range(int from, int count) {
        return bytes(from, count).array();
    }

    // BB-1
    // Length-prefix fast path: visible only after commit, refused when fewer than 4 bytes are left.
    @Test
    void appendInt_writesBigEndian_visibleOnCommit_andRefusesWithoutFourBytes() {
        BufferConsumer consumer = builder.createBufferConsumer();
        builder.appendAndCommit(bytes(0, CAPACITY - 6));

        assertTrue(builder.appendInt(0x01020304));
        assertEquals(CAPACITY - 6, consumer.getWrittenBytes(), "not committed yet");
        builder.commit();
        assertFalse(builder.appendInt(7), "only 2 bytes left");
        assertEquals(2, builder.getWritableBytes(), "a refused int appends nothing");

        Buffer built = consumer.build();
        byte[] content = contentOf(built);
        assertArrayEquals(new byte[] {1, 2, 3, 4}, java.util.Arrays.copyOfRange(content, CAPACITY - 6, CAPACITY - 2));
        built.recycleBuffer();
        consumer.close();
        builder.close();
        verify(recycler, times(1)).recycle(any());
    }

    @Test
    void segmentReturns_onlyAfterBuilderConsumerAndEveryBuiltBufferAreReleased() {
        BufferConsumer consumer = builder.createBufferConsumer();
        builder.appendAndCommit(bytes(0, 5));

        builder.close();
        Buffer built = consumer.build();
        verify(recycler, never()).recycle(any());
        built.recycleBuffer();
        verify(recycler, never()).recycle(any());
        assertFalse(consumer.isRecycled());
        consumer.close();

        verify(recycler, times(1)).recycle(any());
        assertTrue(consumer.isRecycled());
        assertTrue(built.isRecycled());
        consumer.close(); // idempotent
        builder.close();
        verify(recycler, times(1)).recycle(any());
    }

    // BB-1
    @Test
    void builderWithoutConsumer_recyclesItsSegmentOnceOnClose() {
        builder.appendAndCommit(bytes(0, 3));

        builder.close();
        builder.close();

        verify(recycler, times(1)).recycle(any());
        assertThrows(IllegalStateException.class, () -> builder.append(bytes(0, 1)));
        assertThrows(IllegalStateException.class, builder::createBufferConsumer);
    }

    // BB-2
    @Test
    void appends_returnBytesWritten_andTheConsumerSeesTheConcatenationInOrder() {
        BufferConsumer consumer = builder.createBufferConsumer();
        ByteBuffer first = bytes(0, 10);
        ByteBuffer second = bytes(10, 6);

        assertEquals(10, builder.appendAndCommit(first));
        assertEquals(6, builder.appendAndCommit(second));

        assertEquals(0, first.remaining());
        assertEquals(0, second.remaining());
        Buffer built = consumer.build();
        assertArrayEquals(range(0, 16), contentOf(built));
        assertTrue(built.isReadOnly());
        built.recycleBuffer();
        consumer.close();
        builder.close();
    }

    // BB-2
    @Test
    void appendBeyondCapacity_fillsToCapacity_reportsFull_andLeavesTheRestInTheSource() {
        BufferConsumer consumer = builder.createBufferConsumer();
        ByteBuffer source = bytes(0, CAPACITY + 8);

        assertEquals(CAPACITY, builder.appendAndCommit(source));

        assertTrue(builder.isFull());
        assertEquals(0, builder.getWritableBytes());
        assertEquals(8, source.remaining());
        assertEquals(CAPACITY, source.position());
        assertEquals(0, builder.appendAndCommit(source));
        Buffer built = consumer.build();
        assertArrayEquals(range(0, CAPACITY), contentOf(built));
        built.recycleBuffer();
        consumer.close();
        builder.close();
    }

    // BB-2
    @Test
    void secondConsumer_isRefused_whicheverKindCameFirst() {
        BufferConsumer consumer = builder.createBufferConsumerFromBeginning();

        IllegalStateException e = assertThrows(IllegalStateException.class, builder::createBufferConsumer);
        assertTrue(e.getMessage().startsWith("a consumer was already created"), e.getMessage());
        assertThrows(IllegalStateException.class, builder::createBufferConsumerFromBeginning);
        consumer.close();
        builder.close();
        verify(recycler, times(1)).recycle(any());
    }

    // BB-3
    @Test
    void appendWithoutCommit_isInvisibleUntilCommit() {
        BufferConsumer consumer = builder.createBufferConsumer();
        builder.append(bytes(0, 4));

        assertFalse(consumer.isDataAvailable());
        assertEquals(0, consumer.getWrittenBytes());
        assertEquals(0, builder.getCommittedBytes());
        Buffer nothing = consumer.build();
        assertEquals(0, nothing.getSize());
        nothing.recycleBuffer();

        builder.append(bytes(4, 4));
        builder.commit();

        assertTrue(consumer.isDataAvailable());
        assertEquals(8, builder.getCommittedBytes());
        Buffer everything = consumer.build();
        assertArrayEquals(range(0, 8), contentOf(everything));
        everything.recycleBuffer();
        consumer.close();
        builder.close();
    }

    // BB-4
    @Test
    void copy_startsAtTheSourcesReadPosition_advancesOnItsOwn_andSeesLaterData() {
        BufferConsumer consumer = builder.createBufferConsumer();
        builder.appendAndCommit(bytes(0, 4));
        consumer.build().recycleBuffer();

        BufferConsumer copy = consumer.copy();
        builder.appendAndCommit(bytes(4, 3));

        assertEquals(4, copy.getCurrentReaderPosition());
        Buffer fromCopy = copy.build();
        assertArrayEquals(range(4, 3), contentOf(fromCopy));
        Buffer fromOriginal = consumer.build();
        assertArrayEquals(range(4, 3), contentOf(fromOriginal));
        builder.appendAndCommit(bytes(7, 2));
        Buffer later = copy.build();
        assertArrayEquals(range(7, 2), contentOf(later));

        for (Buffer buffer : new Buffer[] {fromCopy, fromOriginal, later}) {
            buffer.recycleBuffer();
        }
        consumer.close();
        builder.close();
        verify(recycler, never()).recycle(any()); // the copy still holds a reference
        copy.close();
        verify(recycler, times(1)).recycle(any());
    }

    // BB-5
    @Test
    void build_returnsOnlyBytesCommittedSinceTheLastBuild_andWritableBytesTrackAppends() {
        BufferConsumer consumer = builder.createBufferConsumer();
        Buffer empty = consumer.build();
        assertEquals(0, empty.getSize());
        assertEquals(CAPACITY, builder.getWritableBytes());

        builder.appendAndCommit(bytes(0, 5));
        assertEquals(CAPACITY - 5, builder.getWritableBytes());
        Buffer first = consumer.build();
        Buffer again = consumer.build();
        builder.appendAndCommit(bytes(5, 3));
        Buffer second = consumer.build();

        assertArrayEquals(range(0, 5), contentOf(first));
        assertEquals(0, again.getSize());
        assertArrayEquals(range(5, 3), contentOf(second));
        assertEquals(8, consumer.getCurrentReaderPosition());
        for (Buffer buffer : new Buffer[] {empty, first, again, second}) {
            buffer.recycleBuffer();
        }
        consumer.close();
        builder.close();
        verify(recycler, times(1)).recycle(any());
    }

    // BB-6
    @Test
    void consumerIsFinished_onlyWhenTheBuilderFinished_andEverythingWasBuilt() {
        BufferConsumer consumer = builder.createBufferConsumer();
        builder.appendAndCommit(bytes(0, 6));
        assertFalse(consumer.isFinished());

        assertEquals(6, builder.finish());
        assertEquals(6, builder.finish());
        assertTrue(builder.isFinished());
        assertFalse(consumer.isFinished()); // committed bytes not yet built

        Buffer built = consumer.build();
        assertTrue(consumer.isFinished());
        Buffer afterFinish = consumer.build();
        assertEquals(0, afterFinish.getSize());
        assertThrows(IllegalStateException.class, () -> builder.append(bytes(0, 1)));

        built.recycleBuffer();
        afterFinish.recycleBuffer();
        consumer.close();
        builder.close();
    }

    // BB-6: finish publishes bytes that were appended but never committed
    @Test
    void finish_commitsPendingAppends() {
        BufferConsumer consumer = builder.createBufferConsumer();
        builder.append(bytes(0, 3));

        builder.finish();

        assertEquals(3, consumer.getWrittenBytes());
        Buffer built = consumer.build();
        assertArrayEquals(range(0, 3), contentOf(built));
        assertTrue(consumer.isFinished());
        built.recycleBuffer();
        consumer.close();
        builder.close();
    }

    // BB-6: a finished empty builder is finished for its consumer at once
    @Test
    void emptyFinishedBuilder_givesAFinishedConsumer() {
        BufferConsumer consumer = builder.createBufferConsumer();

        assertEquals(0, builder.finish());

        assertTrue(consumer.isFinished());
        assertFalse(consumer.isDataAvailable());
        consumer.close();
        builder.close();
    }

    // BB-7
    @Test
    void trim_clampsBetweenBytesWrittenAndTheOriginalCapacity() {
        builder.appendAndCommit(bytes(0, 5));

        builder.trim(10);
        assertEquals(10, builder.getMaxCapacity());
        assertEquals(5, builder.getWritableBytes());
        builder.trim(2);
        assertEquals(5, builder.getMaxCapacity());
        assertTrue(builder.isFull());
        builder.trim(CAPACITY * 2);
        assertEquals(CAPACITY, builder.getMaxCapacity());
        builder.close();

        BufferBuilder fresh = new BufferBuilder(MemorySegment.allocateOffHeap(CAPACITY), recycler);
        fresh.trim(-3);
        assertEquals(0, fresh.getMaxCapacity());
        assertEquals(0, fresh.append(bytes(0, 1)));
        fresh.close();
    }

    @Test
    void createBufferConsumer_startsAtTheWritePosition_fromBeginningStartsAtZero() {
        builder.appendAndCommit(bytes(0, 4));
        BufferConsumer fromHere = builder.createBufferConsumer();
        builder.appendAndCommit(bytes(4, 2));
        Buffer built = fromHere.build();
        assertArrayEquals(range(4, 2), contentOf(built));
        built.recycleBuffer();
        fromHere.close();
        builder.close();

        BufferBuilder other = new BufferBuilder(MemorySegment.allocateOffHeap(CAPACITY), recycler);
        other.appendAndCommit(bytes(0, 4));
        BufferConsumer fromStart = other.createBufferConsumerFromBeginning();
        Buffer all = fromStart.build();
        assertArrayEquals(range(0, 4), contentOf(all));
        all.recycleBuffer();
        fromStart.close();
        other.close();
        verify(recycler, times(2)).recycle(any());
    }

    @Test
    void consumerOfACompleteEvent_isFinished_andBuildsItOnce() {
        byte[] payload = {1, 2, 3};
        Buffer event = new Buffer(MemorySegment.wrap(payload), recycler, false, payload.length);

        BufferConsumer consumer = new BufferConsumer(event);

        assertFalse(consumer.isBuffer());
        assertTrue(consumer.isDataAvailable());
        Buffer built = consumer.build();
        assertFalse(built.isBuffer());
        assertArrayEquals(payload, contentOf(built));
        assertTrue(consumer.isFinished());
        built.recycleBuffer();
        consumer.close();
        verify(recycler, times(1)).recycle(any());
        assertThrows(IllegalStateException.class, consumer::build);
    }

    @Test
    void eventBuilder_producesEventBuffers() {
        builder.tagAsEvent();
        BufferConsumer consumer = builder.createBufferConsumer();
        builder.appendAndCommit(bytes(0, 2));

        Buffer built = consumer.build();

        assertFalse(consumer.isBuffer());
        assertFalse(built.isBuffer());
        built.recycleBuffer();
        consumer.close();
        builder.close();
    }
}
