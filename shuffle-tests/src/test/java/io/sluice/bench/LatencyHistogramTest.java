package io.sluice.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void everyBucket_holdsItsValuesWithin1Part32() {
        long[] values = {0, 1, 63, 64, 65, 127, 128, 1000, 55_300, 1L << 40, (1L << 40) + 12345, Long.MAX_VALUE};
        for (long value : values) {
            int bucket = LatencyHistogram.bucketOf(value);
            long upper = LatencyHistogram.upperBound(bucket);
            assertTrue(upper >= value, value + " above its bucket's bound " + upper);
            assertTrue(upper - value <= value / 32, value + " reported as " + upper);
            if (bucket > 0) {
                assertTrue(LatencyHistogram.upperBound(bucket - 1) < value, value + " belongs to an earlier bucket");
            }
        }
    }

    @Test
    void buckets_areContiguousAndIncreasing() {
        for (int bucket = 1; bucket < 1888; bucket++) {
            assertEquals(bucket, LatencyHistogram.bucketOf(LatencyHistogram.upperBound(bucket - 1) + 1), "after bucket " + (bucket - 1));
        }
    }

    @Test
    void quantiles_ofOneToTenThousand_areWithinTheResolution() {
        LatencyHistogram histogram = new LatencyHistogram();
        for (long v = 1; v <= 10_000; v++) {
            histogram.record(v * 1000);
        }

        assertWithin(5_000_000, histogram.quantile(0.5));
        assertWithin(9_900_000, histogram.quantile(0.99));
        assertWithin(9_990_000, histogram.quantile(0.999));
        assertEquals(10_000_000, histogram.max());
        assertEquals(10_000_000, histogram.quantile(1.0), "the top quantile is the exact maximum");
        assertEquals(10_000, histogram.count());
    }

    @Test
    void add_mergesCountsAndMaximum() {
        LatencyHistogram fast = new LatencyHistogram();
        LatencyHistogram slow = new LatencyHistogram();
        for (int i = 0; i < 90; i++) {
            fast.record(100);
        }
        for (int i = 0; i < 10; i++) {
            slow.record(1_000_000);
        }

        fast.add(slow);

        assertEquals(100, fast.count());
        assertWithin(100, fast.quantile(0.9));
        assertWithin(1_000_000, fast.quantile(0.91));
        assertEquals(1_000_000, fast.max());
    }

    @Test
    void emptyHistogram_reportsZero_andNegativeLatenciesCountAsZero() {
        LatencyHistogram histogram = new LatencyHistogram();
        assertEquals(0, histogram.quantile(0.5));

        histogram.record(-5);

        assertEquals(1, histogram.count());
        assertEquals(0, histogram.quantile(0.5));
        assertEquals(0, histogram.max());
    }

    private static void assertWithin(long expected, long actual) {
        assertTrue(actual >= expected && actual <= expected + expected / 32, "expected " + expected + " (+3%), got " + actual);
    }
}
