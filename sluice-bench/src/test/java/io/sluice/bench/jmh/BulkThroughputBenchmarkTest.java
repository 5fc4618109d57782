package io.sluice.bench.jmh;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BulkThroughputBenchmarkTest {

    @Test
    void defaultsWindow_leavesTheConfigAsItWas() {
        ShuffleConfig config = ShuffleConfig.empty();

        assertSame(config, BulkThroughputBenchmark.withWindow(config, "defaults"));
    }

    @Test
    void window_setsMaxBuffersPerSubpartitionAndFloatingBuffersPerGate() {
        ShuffleConfig config = BulkThroughputBenchmark.withWindow(ShuffleConfig.empty(), "40/32");

        assertEquals(40, config.get(ShuffleOptions.MAX_BUFFERS_PER_SUBPARTITION));
        assertEquals(32, config.get(ShuffleOptions.FLOATING_BUFFERS_PER_GATE));
        assertEquals(ShuffleOptions.BUFFERS_PER_CHANNEL.defaultValue(), config.get(ShuffleOptions.BUFFERS_PER_CHANNEL));
    }

    @Test
    void windowWithoutSlash_failsNamingTheExpectedShape() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BulkThroughputBenchmark.withWindow(ShuffleConfig.empty(), "40"));

        assertTrue(e.getMessage().contains("'defaults' or 'M/F'") && e.getMessage().contains("'40'"),
                e.getMessage());
    }
}
