package io.sluice.bench.report;

import org.HdrHistogram.Histogram;

/**
 * Per-record latency of a run, from generation to verification, in nanoseconds. Immutable value.
 *
 * @param count records measured; 0 when this process did not consume
 * @param p50 median
 * @param p99 99th percentile
 * @param p999 99.9th percentile
 * @param max the largest
 */
public record LatencySummary(long count, long p50, long p99, long p999, long max) {

    /** Nothing measured. */
    public static final LatencySummary NONE = new LatencySummary(0, 0, 0, 0, 0);

    /**
     * Significant decimal digits the histograms keep: every reported value is within 1% of the true one (the
     * resolution of a latency summary; more digits cost memory per consumer).
     */
    static final int SIGNIFICANT_DIGITS = 2;

    /**
     * @return an empty latency histogram (HdrHistogram's, auto-resizing: it allocates only when a value beyond its
     *     current range first arrives, so recording is allocation-free once it has seen the run's range)
     */
    public static Histogram newHistogram() {
        return new Histogram(SIGNIFICANT_DIGITS);
    }

    /**
     * @param histogram latencies in nanoseconds
     * @return its count, percentiles and maximum (each within 1% above the true value)
     */
    public static LatencySummary of(Histogram histogram) {
        if (histogram.getTotalCount() == 0) {
            return NONE;
        }
        return new LatencySummary(histogram.getTotalCount(), histogram.getValueAtPercentile(50),
                histogram.getValueAtPercentile(99), histogram.getValueAtPercentile(99.9), histogram.getMaxValue());
    }
}
