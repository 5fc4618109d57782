package io.sluice.api;

/**
 * Turns a cumulative nanosecond counter into a rate in milliseconds per second, the way Flink reports
 * {@code backPressuredTimeMsPerSecond}: take two snapshots, divide the growth of the counter by the time between
 * them. Stateless; any thread.
 */
final class RateSince {

    private RateSince() {
    }

    /**
     * @param laterNanos      the counter in the later snapshot
     * @param earlierNanos    the counter in the earlier snapshot
     * @param laterTimestamp  {@link System#nanoTime()} of the later snapshot
     * @param earlierTimestamp {@link System#nanoTime()} of the earlier snapshot
     * @return milliseconds counted per second of wall time, in [0, 1000]; 0 when no time passed
     */
    static double msPerSecond(long laterNanos, long earlierNanos, long laterTimestamp, long earlierTimestamp) {
        long elapsed = laterTimestamp - earlierTimestamp;
        if (elapsed <= 0) {
            return 0;
        }
        double rate = (laterNanos - earlierNanos) * 1000.0 / elapsed;
        return Math.max(0, Math.min(1000, rate));
    }

    /** {@code used / capacity} in [0, 1]; 0 for no capacity. */
    static double usage(int used, int capacity) {
        if (capacity <= 0) {
            return 0;
        }
        return Math.max(0, Math.min(1, (double) used / capacity));
    }
}
