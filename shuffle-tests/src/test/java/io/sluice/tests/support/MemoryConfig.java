package io.sluice.tests.support;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;

/**
 * Configurations with a given amount of network memory: small environments whose limits a test reaches quickly.
 * Stateless; any thread.
 */
public final class MemoryConfig {

    /** The smallest segment the configuration allows: limits are reached with little data. */
    public static final int SMALL_SEGMENT = 4096;

    private MemoryConfig() {
    }

    /**
     * @param segments how many segments each environment has
     * @param segmentSize bytes of one segment
     * @return a configuration with {@code shuffle.memory.total = segments x segmentSize}, the rest default
     */
    public static ShuffleConfig of(int segments, int segmentSize) {
        return ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, (long) segmentSize)
                .with(ShuffleOptions.MEMORY_TOTAL, (long) segments * segmentSize);
    }
}
