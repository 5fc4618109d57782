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
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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

    /** Every record length around the small-record branches, from heap and direct sources, into both segment kinds. */
    static List<Arguments> prefixedRecords() {
        List<Arguments> cases = new ArrayList<>();
        for (boolean offHeapSegment : new boolean[] {true, false}) {
            for (boolean directSource : new boolean[] {false, true}) {
                for (int length : new int[] {0, 1, 7, 8, 9, 15, 16, 17, 24}) {
                    cases.add(Arguments.of(offHeapSegment, directSource, length));
                }
            }
        }
        return cases;
    }

    // BB-8
    // The producer's whole-record path: prefix and bytes in one call, the source's position untouched.
    @ParameterizedTest(name = "off-heap segment {0}, direct source {1}, {2} bytes")
    @MethodSource("prefixedRecords")
    void appendPrefixedAndCommit_writesBigEndianPrefixThenBytes_andLeavesTheSourcePosition(
            boolean offHeapSegment, boolean directSource, int length) {
        MemorySegment segment = offHeapSegment ? MemorySegment.allocateOffHeap(64) : MemorySegment.wrap(new byte[64]);
        BufferBuilder prefixed = new BufferBuilder(segment, recycler);
        BufferConsumer consumer = prefixed.createBufferConsumer();
        prefixed.appendAndCommit(bytes(100, 3)); // an odd offset for what follows
        // A source that is a slice with a little-endian order and a position past its start: none of it may matter.
        ByteBuffer backing = directSource ? ByteBuffer.allocateDirect(length + 10) : ByteBuffer.allocate(length + 10);
        backing.put(bytes(0, length + 10));
        ByteBuffer source = backing.position(3).slice().order(ByteOrder.LITTLE_ENDIAN);
        source.position(2).limit(2 + length);

        assertTrue(prefixed.appendPrefixedAndCommit(length, source));

        assertEquals(2, source.position(), "the source's position stays where it was");
        assertEquals(2 + length, source.limit());
        Buffer built = consumer.build();
        byte[] expected = new byte[3 + 4 + length];
        System.arraycopy(range(100, 3), 0, expected, 0, 3);
        expected[6] = (byte) length; // big-endian: the three bytes before it are 0
        System.arraycopy(range(5, length), 0, expected, 7, length);
        assertArrayEquals(expected, contentOf(built), "committed: the prefix, then the record's bytes");
        built.recycleBuffer();
        consumer.close();
        prefixed.close();
    }

    // BB-8
    @Test
    void appendPrefixedAndCommit_refusesARecordThatDoesNotFit_writingNothing() {
        BufferConsumer consumer = builder.createBufferConsumer();
        builder.appendAndCommit(bytes(0, CAPACITY - 12));
        ByteBuffer tooLong = bytes(50, 9);

        assertFalse(builder.appendPrefixedAndCommit(9, tooLong), "4 + 9 bytes do not fit in 12");

        assertEquals(0, tooLong.position());
        assertEquals(12, builder.getWritableBytes(), "a refused record appends nothing");
        assertTrue(builder.appendPrefixedAndCommit(8, bytes(50, 8)), "4 + 8 bytes fit exactly");
        assertTrue(builder.isFull());
        Buffer built = consumer.build();
        byte[] content = contentOf(built);
        assertArrayEquals(range(50, 8), java.util.Arrays.copyOfRange(content, CAPACITY - 8, CAPACITY));
        built.recycleBuffer();
        consumer.close();
        builder.close();
    }

    // BB-8
    @Test
    void appendPrefixedAndCommit_onAClosedBuilder_throws() {
        builder.close();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> builder.appendPrefixedAndCommit(1, bytes(0, 1)));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
