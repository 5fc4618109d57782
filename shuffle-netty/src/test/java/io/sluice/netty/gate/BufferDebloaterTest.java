package io.sluice.netty.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.netty.config.DebloatSettings;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/**
 * The buffer size calculation of debloating on a fake clock: size = throughput x target / buffers in flight, the
 * throughput leaving out idle time, averaged over the samples, within the minimum and the segment, announced only
 * past the threshold (docs/contract.md, "Buffer debloating").
 */
class BufferDebloaterTest {

    private static final int SEGMENT = 32 * 1024;
    private static final long SECOND = 1_000_000_000L;

    /** The fake clock, in nanoseconds; and the running totals the gate would pass. */
    private long now = 5 * SECOND;
    private long bytesIn;
    private long idleNanos;

    /** Starting at a whole segment. */
    private static BufferDebloater debloater(int samples, int thresholdPercentage) {
        return debloater(samples, thresholdPercentage, SEGMENT);
    }

    private static BufferDebloater debloater(int samples, int thresholdPercentage, int startingSize) {
        return new BufferDebloater(new DebloatSettings(true, Duration.ofSeconds(1), Duration.ZERO, 256,
                startingSize, thresholdPercentage, samples), SEGMENT);
    }

    /** One period: {@code bytes} taken over {@code nanos}, {@code idle} of which the gate was empty. */
    private int sample(BufferDebloater debloater, long bytes, long nanos, long idle, int buffersInUse) {
        now += nanos;
        bytesIn += bytes;
        idleNanos += idle;
        return debloater.recalculate(now, bytesIn, idleNanos, buffersInUse);
    }

    @Test
    void theFirstSampleOnlyStartsTheMeasurement_andNothingIsAnnouncedBeforeData() {
        BufferDebloater debloater = debloater(1, 25, 1024);

        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 0, 0, 0, 10));
        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 0, SECOND, SECOND / 2, 10));
        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 0, SECOND, 0, 10));
        assertEquals(1024, debloater.announcedSize(), "the starting size, which the gate announced at its setup");
    }

    /**
     * Flink's debloater from its starting size (taskmanager.memory.starting-segment-size, 1 KiB): the figures of a
     * keyed Flink job's gate under backpressure, about 190 KB/s over 20 to 30 buffers in flight. Each sample wants
     * far more than 1 KiB a buffer, so it is capped at twice the average, which moves 2/21 of the way there: 1,024,
     * 1,122 (not announced: under 25% more), 1,228, 1,345 (announced), and so on.
     */
    @Test
    void fromTheStartingSize_theAverageGrowsAsFlinksDoes() {
        BufferDebloater debloater = debloater(20, 25, 1024);
        sample(debloater, 0, 0, 0, 0);

        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 146_802, SECOND, 0, 28), "1122");
        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 193_592, SECOND, 0, 24), "1228");
        assertEquals(1345, sample(debloater, 186_731, SECOND, 0, 21));
        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 192_445, SECOND, 0, 19), "1473");
        assertEquals(1345, debloater.announcedSize());
        // 20 buffers of at most 200,000 / 20 = 10,000 bytes: the average levels off there.
        int announced = 1345;
        for (int i = 0; i < 200; i++) {
            int size = sample(debloater, 200_000, SECOND, 0, 20);
            announced = size == BufferDebloater.NO_CHANGE ? announced : size;
        }
        assertTrue(announced > 7500 && announced <= 10_000, "" + announced);
    }

    @Test
    void aStartingSizeOutsideTheMinimumAndTheSegment_isHeldWithinThem() {
        assertEquals(256, debloater(1, 25, 64).announcedSize());
        assertEquals(SEGMENT, debloater(1, 25, 4 * SEGMENT).announcedSize());
    }

    @Test
    void size_isThroughputTimesTargetPerBufferInFlight() {
        BufferDebloater debloater = debloater(1, 25);
        sample(debloater, 0, 0, 0, 0);

        // 10,000 bytes/s for 1 s of data in flight over 10 buffers: 1,000 bytes each.
        assertEquals(1000, sample(debloater, 10_000, SECOND, 0, 10));
        assertEquals(10_000, debloater.throughput());
        assertEquals(1000, debloater.announcedSize());
    }

    @Test
    void idleTime_isLeftOutOfTheThroughput() {
        BufferDebloater debloater = debloater(1, 25);
        sample(debloater, 0, 0, 0, 0);

        // 10,000 bytes in the half second the gate was busy: 20,000 bytes/s.
        assertEquals(2000, sample(debloater, 10_000, SECOND, SECOND / 2, 10));
        assertEquals(20_000, debloater.throughput());
    }

    @Test
    void aPeriodSpentIdle_keepsTheThroughputMeasuredBefore() {
        BufferDebloater debloater = debloater(1, 25);
        sample(debloater, 0, 0, 0, 0);
        sample(debloater, 10_000, SECOND, 0, 10);

        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 0, SECOND, SECOND, 10));
        assertEquals(10_000, debloater.throughput());
    }

    @Test
    void noBufferInFlight_countsAsOne() {
        BufferDebloater debloater = debloater(1, 25);
        sample(debloater, 0, 0, 0, 0);

        assertEquals(5000, sample(debloater, 5000, SECOND, 0, 0));
    }

    @Test
    void size_staysWithinTheMinimumAndTheSegment() {
        BufferDebloater debloater = debloater(1, 25);
        sample(debloater, 0, 0, 0, 0);

        assertEquals(256, sample(debloater, 100, SECOND, 0, 10), "10 bytes a buffer: raised to the minimum");
        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 100, SECOND, 0, 10), "the same size again");
        // Far above a segment: the average at most doubles per sample, then stops at the segment.
        int size = 256;
        for (int expected : new int[] {512, 1024, 2048, 4096, 8192, 16384, SEGMENT}) {
            size = sample(debloater, 100L << 20, SECOND, 0, 1);
            assertEquals(expected, size);
        }
        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 100L << 20, SECOND, 0, 1), "at the segment");
        assertEquals(SEGMENT, debloater.announcedSize());
    }

    @Test
    void aChangeBelowTheThreshold_isNotAnnounced() {
        BufferDebloater debloater = debloater(1, 25);
        sample(debloater, 0, 0, 0, 0);
        assertEquals(4000, sample(debloater, 40_000, SECOND, 0, 10));

        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 49_900, SECOND, 0, 10), "4990 is 24.75% more");
        assertEquals(4000, debloater.announcedSize());
        assertEquals(5000, sample(debloater, 50_000, SECOND, 0, 10), "5000 is 25% more");
        assertEquals(BufferDebloater.NO_CHANGE, sample(debloater, 37_600, SECOND, 0, 10), "3760 is 24.8% less");
        assertEquals(3750, sample(debloater, 37_500, SECOND, 0, 10), "3750 is 25% less");
    }

    @Test
    void theSizeIsAveragedOverTheSamples() {
        BufferDebloater debloater = debloater(20, 25);
        sample(debloater, 0, 0, 0, 0);

        // Each sample moves the average 2/21 of the way from the segment towards 1,000 bytes.
        double average = SEGMENT;
        int announced = BufferDebloater.NO_CHANGE;
        int samples = 0;
        while (announced == BufferDebloater.NO_CHANGE) {
            announced = sample(debloater, 10_000, SECOND, 0, 10);
            average += 2.0 / 21 * (1000 - average);
            samples++;
        }

        assertEquals(3, samples, "the first sample 25% below the segment");
        assertEquals(Math.round(average), announced);
        assertTrue(announced < SEGMENT * 3 / 4 && announced > 1000, "" + announced);
    }
}
