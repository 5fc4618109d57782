package io.sluice.bench.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OneWayLatencyTest {

    @Test
    void percentile_isTheNearestRank_asTheFlinkPeerComputesIt() {
        long[] sorted = new long[100];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = i + 1;
        }

        assertEquals(50, OneWayLatency.percentile(sorted, 0.50));
        assertEquals(99, OneWayLatency.percentile(sorted, 0.99));
        assertEquals(100, OneWayLatency.percentile(sorted, 0.999));
        assertEquals(7, OneWayLatency.percentile(new long[] {7}, 0.5));
        assertTrue(Double.isNaN(OneWayLatency.percentile(new long[0], 0.5)));
    }
}
