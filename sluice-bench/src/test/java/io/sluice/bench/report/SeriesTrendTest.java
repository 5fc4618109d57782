package io.sluice.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's definition of "flat after warm-up", on made-up series. */
class SeriesTrendTest {

    @Test
    void warmUpGrowthIsIgnored_aSteadyPlateauIsFlat() {
        // 10 samples: the first (one tenth) is warm-up; earlier half = samples 1..5, later half = 6..9.
        long[] values = {10, 500, 520, 510, 505, 515, 512, 530, 518, 521};

        SeriesTrend trend = SeriesTrend.of("heap", values, 0);

        assertTrue(trend.judged());
        assertTrue(trend.flat(), trend.describe());
        assertEquals(520, trend.baseline());
        assertEquals(530, trend.laterMax());
        assertEquals(572, trend.allowed(), "10 % above the baseline");
    }

    @Test
    void steadyGrowth_isNotFlat() {
        long[] values = {100, 100, 110, 120, 130, 140, 150, 160, 170, 180};

        SeriesTrend trend = SeriesTrend.of("directBytes", values, 5);

        assertFalse(trend.flat());
        assertEquals(140, trend.baseline());
        assertEquals(180, trend.laterMax());
        assertTrue(trend.describe().startsWith("GREW (baseline 140, later max 180, allowed 154)"), trend.describe());
    }

    @Test
    void noiseFloor_coversSmallAbsoluteJitterOfSmallValues() {
        long[] values = {0, 2, 3, 2, 9};

        assertTrue(SeriesTrend.of("segmentsInUse", values, 64).flat());
        assertFalse(SeriesTrend.of("openConnections", new long[] {4, 4, 4, 4, 5}, 0).flat(), "a connection more is growth");
    }

    @Test
    void tooFewSamplesOrUnknownValues_areNotJudged() {
        assertFalse(SeriesTrend.of("x", new long[] {1, 2}, 0).judged(), "one sample after warm-up");
        assertFalse(SeriesTrend.of("x", new long[] {1, 2, -1, 3}, 0).judged(), "-1: the JVM did not report it");
        assertTrue(SeriesTrend.of("x", new long[] {-1, 2, 2}, 0).judged(), "a missing warm-up sample does not matter");
    }

    @Test
    void report_judgesEverySeries_allFlatOnlyWhenEachJudgedOneIs() {
        List<ResourceSample> flat = List.of(sample(0, 4), sample(1, 4), sample(2, 4), sample(3, 4));
        List<ResourceSample> oneMoreConnection = List.of(sample(0, 4), sample(1, 4), sample(2, 4), sample(3, 5));

        SoakReport report = new SoakReport(Duration.ofSeconds(1), flat);

        assertEquals(List.of("directBytes", "nettyDirectBytes", "heapAfterGcBytes", "segmentsInUse", "openConnections"),
                report.trends().stream().map(SeriesTrend::name).toList());
        assertTrue(report.allFlat());
        assertFalse(new SoakReport(Duration.ofSeconds(1), oneMoreConnection).allFlat());
        assertFalse(SoakReport.NONE.allFlat(), "nothing sampled, nothing shown flat");
        assertEquals("sample 2 at 1:05: direct 64.0 MiB (Netty allocator 16.0 MiB), heap after GC n/a,"
                + " network buffers in use 7, open connections 4", SoakReport.line(2, new ResourceSample(
                        Duration.ofSeconds(65).toNanos(), 64L << 20, 16L << 20, -1, 7, 4)));
    }

    private static ResourceSample sample(int minute, int connections) {
        return new ResourceSample(Duration.ofMinutes(minute).toNanos(), 64L << 20, 16L << 20, 100L << 20, 10, connections);
    }
}
