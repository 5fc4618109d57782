package io.sluice.netty.config;

import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;

import java.time.Duration;

/**
 * The buffer debloating options of one environment ({@code shuffle.debloat.*}), read once. Immutable; any thread.
 *
 * @param enabled             whether gates size their producers' buffers from their throughput
 * @param target              the time the data in flight towards a gate should take it to consume
 * @param period              how often the environment's timer recalculates every gate's size; zero when the
 *                            engine calls {@link io.sluice.api.InputGate#triggerDebloating()} itself
 * @param minBufferSize       the smallest size a gate announces, in bytes (at most the segment size counts)
 * @param startingBufferSize  the size a gate announces at its setup and averages from, in bytes (held within the
 *                            minimum and the segment size)
 * @param thresholdPercentage the least change, in percent of the size announced last, that is announced
 * @param samples             the number of recalculations the size is averaged over
 */
public record DebloatSettings(boolean enabled, Duration target, Duration period, int minBufferSize,
                              int startingBufferSize, int thresholdPercentage, int samples) {

    /** Debloating off, with the options' defaults for the rest. */
    public static final DebloatSettings OFF = from(ShuffleConfig.empty());

    /** Reads the options from a configuration that passed validation. */
    public static DebloatSettings from(ShuffleConfig config) {
        return new DebloatSettings(config.get(ShuffleOptions.DEBLOAT_ENABLED),
                config.get(ShuffleOptions.DEBLOAT_TARGET),
                config.get(ShuffleOptions.DEBLOAT_PERIOD),
                (int) (long) config.get(ShuffleOptions.DEBLOAT_MIN_BUFFER_SIZE),
                (int) (long) config.get(ShuffleOptions.DEBLOAT_STARTING_BUFFER_SIZE),
                config.get(ShuffleOptions.DEBLOAT_THRESHOLD_PERCENTAGE),
                config.get(ShuffleOptions.DEBLOAT_SAMPLES));
    }

    /**
     * The size a gate starts at, and a producer cuts before its consumer's request: the starting size held within
     * the minimum and {@code segmentSize}.
     */
    public int effectiveStartingBufferSize(int segmentSize) {
        return Math.max(Math.min(minBufferSize, segmentSize), Math.min(segmentSize, startingBufferSize));
    }

    /** Whether the environment's timer drives every gate's debloating. */
    public boolean periodic() {
        return enabled && !period.isZero();
    }
}
