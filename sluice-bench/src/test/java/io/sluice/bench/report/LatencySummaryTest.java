package io.sluice.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The latency summary reads HdrHistogram's percentiles, within its 1% resolution. */
class LatencySummaryTest {

    @Test
    void percentilesOfOneToTenThousandMicroseconds_areWithinOnePercent() {
        Histogram histogram = LatencySummary.newHistogram();
        for (long v = 1; v <= 10_000; v++) {
            histogram.recordValue(v * 1000);
        }

        LatencySummary summary = LatencySummary.of(histogram);

        assertEquals(10_000, summary.count());
        assertWithinOnePercent(5_000_000, summary.p50());
        assertWithinOnePercent(9_900_000, summary.p99());
        assertWithinOnePercent(9_990_000, summary.p999());
        assertWithinOnePercent(10_000_000, summary.max());
    }

    @Test
    void mergedHistograms_keepBothPopulations() {
        Histogram fast = LatencySummary.newHistogram();
        Histogram slow = LatencySummary.newHistogram();
        for (int i = 0; i < 990; i++) {
            fast.recordValue(100);
        }
        for (int i = 0; i < 10; i++) {
            slow.recordValue(1_000_000_000L); // one second: beyond the first histogram's initial range
        }
        Histogram all = LatencySummary.newHistogram();
        all.add(fast);
        all.add(slow);

        LatencySummary summary = LatencySummary.of(all);

        assertEquals(1000, summary.count());
        assertWithinOnePercent(100, summary.p50());
        assertWithinOnePercent(1_000_000_000L, summary.p999());
        assertWithinOnePercent(1_000_000_000L, summary.max());
    }

    @Test
    void emptyHistogram_isNone() {
        assertSame(LatencySummary.NONE, LatencySummary.of(LatencySummary.newHistogram()));
    }

    private static void assertWithinOnePercent(long expected, long actual) {
        assertTrue(actual >= expected && actual <= expected + expected / 100 + 1,
                "expected " + expected + " (+1%), got " + actual);
    }
}
