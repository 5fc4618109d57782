package io.sluice.bench.report;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How a blocking run's two phases make one memory peak. */
class MemoryPeakTest {

    /**
     * The write phase fills the writers' pools, the read phase (later) has the higher peak RSS: the summary must show
     * the network peak of the first and the RSS of the second. Picking one phase by its RSS, as the bench did,
     * reported the read phase's 64 buffers for runs whose writers held 2,048.
     */
    @Test
    void larger_takesEachPeakFromThePhaseThatHadIt() {
        MemoryPeak write = new MemoryPeak(2048L << 15, 4096L << 15, 2048, 4096, 100, 400);
        MemoryPeak read = new MemoryPeak(64L << 15, 4096L << 15, 64, 4096, 160, 500);

        MemoryPeak run = MemoryPeak.larger(write, read);

        assertEquals(new MemoryPeak(2048L << 15, 4096L << 15, 2048, 4096, 160, 500), run);
        assertEquals(run, MemoryPeak.larger(read, write), "the order of the phases does not matter");
    }
}
