package io.sluice.netty.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.netty.testing.PartitionFixture;
import io.sluice.netty.testing.RecordingAvailabilityListener;
import io.sluice.netty.testing.TestRecords;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Buffer debloating on the producer side: a pipelined subpartition cuts the buffers it starts after its consumer
 * announced a size at that size, between {@link PipelinedSubpartition#MIN_BUFFER_SIZE} and a segment; the buffer
 * being filled keeps its size; the records come out whole and in order whatever the cuts (docs/contract.md,
 * "Buffer debloating").
 */
@Timeout(30)
class AnnouncedBufferSizeTest {

    private static final int SEGMENT = 1024;

    private final PartitionFixture fixture = new PartitionFixture(512, SEGMENT);
    /** The records emitted so far, in order. */
    private final List<byte[]> records = new ArrayList<>();
    private ResultPartition partition;
    private ResultSubpartitionView view;

    @BeforeEach
    void setUpPartitionAndItsReader() throws Exception {
        partition = fixture.newPartition().buffers(2, 200).setUp();
        view = partition.createSubpartitionView(0, new RecordingAvailabilityListener());
    }

    @AfterEach
    void closeAndCheckForLeaks() throws Exception {
        fixture.close();
    }

    @Test
    void buffersStartedAfterAnAnnouncement_areCutAtTheAnnouncedSize_andRecordsStayIntact() throws Exception {
        view.notifyNewBufferSize(200);
        emit(0, 40, 150);
        partition.finish();
        Drained drained = drain();

        assertTrue(drained.sizes.size() > 1, "buffers: " + drained.sizes);
        for (int size : drained.sizes) {
            assertTrue(size <= 200, "a buffer of " + size + " bytes after an announcement of 200: " + drained.sizes);
        }
        assertRecords(drained);
    }

    @Test
    void anAnnouncementDuringABuffer_leavesThatBufferWhole_andCutsTheNextOnes() throws Exception {
        emit(0, 3, 100); // 312 bytes into a buffer of a whole segment
        view.notifyNewBufferSize(128);
        emit(3, 30, 100);
        partition.finish();
        Drained drained = drain();

        assertEquals(SEGMENT, drained.sizes.get(0), "the buffer under way when the size came: " + drained.sizes);
        for (int size : drained.sizes.subList(1, drained.sizes.size())) {
            assertTrue(size <= 128, "a later buffer of " + size + " bytes: " + drained.sizes);
        }
        assertRecords(drained);
    }

    @Test
    void aLargerAnnouncement_growsTheBuffersBack_upToASegment() throws Exception {
        view.notifyNewBufferSize(100);
        emit(0, 10, 60);
        partition.flushAll();
        Drained small = drain();
        view.notifyNewBufferSize(10 * SEGMENT);
        emit(10, 40, 60);
        partition.finish();
        Drained large = drain();

        assertEquals(100, small.sizes.stream().mapToInt(Integer::intValue).max().orElseThrow(), "" + small.sizes);
        assertEquals(SEGMENT, large.sizes.get(1), "a size above the segment means a whole segment: " + large.sizes);
        small.data.writeBytes(large.data.toByteArray());
        assertRecords(small);
    }

    @Test
    void aSizeBelowTheMinimum_isRaisedToIt() throws Exception {
        view.notifyNewBufferSize(1);
        emit(0, 10, 30);
        partition.finish();
        Drained drained = drain();

        assertEquals(PipelinedSubpartition.MIN_BUFFER_SIZE, drained.sizes.get(0), "" + drained.sizes);
        for (int size : drained.sizes) {
            assertTrue(size <= PipelinedSubpartition.MIN_BUFFER_SIZE, "" + drained.sizes);
        }
        assertRecords(drained);
    }

    @Test
    void withoutAnAnnouncement_buffersFillWholeSegments() throws Exception {
        emit(0, 30, 100);
        partition.finish();
        Drained drained = drain();

        assertEquals(SEGMENT, drained.sizes.get(0), "" + drained.sizes);
        assertRecords(drained);
    }

    /**
     * A debloating producer's environment gives its subpartitions a starting size: the buffers cut before a reader
     * attaches take it; once attached, the reader decides (whole segments until it announces a size), so that a
     * consumer that does not debloat is not held to small buffers.
     */
    @Test
    void beforeAReaderAttaches_buffersAreCutAtTheStartingSize_thenAsTheReaderSays() throws Exception {
        partition = fixture.newPartition().buffers(2, 200).setUp();
        partition.startingBufferSize(256);
        emit(0, 6, 100); // 624 bytes: buffers of 256, the last one under way when the reader attaches
        view = partition.createSubpartitionView(0, new RecordingAvailabilityListener());
        emit(6, 30, 100);
        partition.finish();
        Drained drained = drain();

        assertEquals(List.of(256, 256, 256), drained.sizes.subList(0, 3),
                "the third was under way when the reader attached: " + drained.sizes);
        assertEquals(SEGMENT, drained.sizes.get(3), "after the reader attached: " + drained.sizes);
        assertRecords(drained);
    }

    private void emit(int from, int to, int length) throws Exception {
        for (int i = from; i < to; i++) {
            records.add(TestRecords.recordBytes(0, i, length));
            partition.emitRecord(TestRecords.record(0, i, length), 0);
        }
    }

    private void assertRecords(Drained drained) {
        List<byte[]> actual = TestRecords.decodeFramed(drained.data.toByteArray());
        assertEquals(records.size(), actual.size(), "record count");
        for (int i = 0; i < records.size(); i++) {
            assertArrayEquals(records.get(i), actual.get(i), "record " + i);
        }
    }

    /** The data buffers readable now, in order: their sizes, and their bytes concatenated. */
    private Drained drain() {
        Drained drained = new Drained();
        for (BufferAndBacklog next = view.getNextBuffer(); next != null; next = view.getNextBuffer()) {
            Polled polled = Polled.from(next);
            if (polled.isBuffer()) {
                drained.sizes.add(polled.bytes().length);
                drained.data.writeBytes(polled.bytes());
            }
        }
        return drained;
    }

    private static final class Drained {
        final List<Integer> sizes = new ArrayList<>();
        final ByteArrayOutputStream data = new ByteArrayOutputStream();
    }
}
