package io.sluice.buffers;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import org.junit.jupiter.api.Test;

/** The water-filling split of spare segments among pools. */
class FairShareTest {

    private static final int UNBOUNDED = Integer.MAX_VALUE;

    @Test
    void spareSegments_areSharedEvenly_withTheRemainderSpreadOneEach() {
        assertArrayEquals(new int[] {3, 4, 4}, FairShare.distribute(new int[] {0, 0, 0},
                new int[] {UNBOUNDED, UNBOUNDED, UNBOUNDED}, 11));
    }

    @Test
    void cappedPools_stopAtTheirMax_andTheOthersShareWhatTheyLeave() {
        assertArrayEquals(new int[] {2, 9, 9}, FairShare.distribute(new int[] {1, 0, 0},
                new int[] {2, UNBOUNDED, UNBOUNDED}, 19));
    }

    @Test
    void minimums_areAlwaysKept_evenWithNothingSpare() {
        assertArrayEquals(new int[] {3, 1, 0}, FairShare.distribute(new int[] {3, 1, 0},
                new int[] {5, UNBOUNDED, 4}, 0));
    }

    @Test
    void moreSpareThanAllMaximums_fillsEveryPoolToItsMax() {
        assertArrayEquals(new int[] {5, 2}, FairShare.distribute(new int[] {1, 2}, new int[] {5, 2}, 100));
    }
}
