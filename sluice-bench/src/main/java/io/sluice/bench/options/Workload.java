package io.sluice.bench.options;

import io.sluice.tests.support.RecordSizes;
import java.time.Duration;

/**
 * What the producers generate: record sizes and seed, and how much: a number of bytes or a
 * duration (exactly one of them). Immutable value.
 *
 * @param sizes record sizes
 * @param totalBytes bytes over every producer, or 0 when {@code duration} is set
 * @param duration how long to produce, or null when {@code totalBytes} is set
 * @param seed seed of sizes and payloads
 * @param corrupt a record to damage on purpose, or null
 */
public record Workload(RecordSizes sizes, long totalBytes, Duration duration, long seed, CorruptRecord corrupt) {

    /** @return true when the producers stop after {@link #duration} rather than after {@link #totalBytes} */
    public boolean timed() {
        return duration != null;
    }

    /**
     * @param producers how many producers share the bytes
     * @param producer one of them, from 0
     * @return the bytes that producer sends; the first ones take the remainder
     */
    public long bytesOf(int producers, int producer) {
        long share = totalBytes / producers;
        return share + (producer < totalBytes % producers ? 1 : 0);
    }
}
