package io.sluice.netty.partition.sortmerge;

import io.sluice.buffers.Buffer;
import io.sluice.netty.compression.BufferCompressor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

class BlockingReadSchedulerTest {

    private static final int SEGMENT = 4096;

    @Test
    void theSegmentRecycledLast_isHandedOutFirst_soTheNextReadWritesIntoCacheWarmMemory() {
        try (BlockingReadScheduler reads = new BlockingReadScheduler("lifo", 3, SEGMENT, new BufferCompressor())) {
            Buffer first = reads.requestBuffer();
            Buffer second = reads.requestBuffer();
            Buffer third = reads.requestBuffer();
            assertNull(reads.requestBuffer(), "the budget of 3 segments is used up");

            first.recycleBuffer();
            third.recycleBuffer();
            Buffer next = reads.requestBuffer();
            Buffer after = reads.requestBuffer();

            assertSame(third.getMemorySegment(), next.getMemorySegment(), "the segment recycled last comes back first");
            assertSame(first.getMemorySegment(), after.getMemorySegment());
            assertEquals(3, reads.allocatedSegments(), "no segment beyond the budget");
            second.recycleBuffer();
            next.recycleBuffer();
            after.recycleBuffer();
            assertEquals(0, reads.segmentsInUse());
        }
    }
}
