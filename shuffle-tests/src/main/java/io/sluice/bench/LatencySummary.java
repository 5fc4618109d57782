package io.sluice.bench;

/**
 * Per-record latency of a run, from generation to verification, in nanoseconds. Immutable value.
 *
 * @param count records measured; 0 when this process did not consume
 * @param p50 median
 * @param p99 99th percentile
 * @param p999 99.9th percentile
 * @param max the largest
 */
record LatencySummary(long count, long p50, long p99, long p999, long max) {

    /** Nothing measured. */
    static final LatencySummary NONE = new LatencySummary(0, 0, 0, 0, 0);

    /** @return the summary of a histogram */
    static LatencySummary of(LatencyHistogram histogram) {
        return new LatencySummary(histogram.count(), histogram.quantile(0.5), histogram.quantile(0.99),
                histogram.quantile(0.999), histogram.max());
    }
}
