package io.sluice.bench;

/**
 * Counts latencies in log-linear buckets: exact below 64 ns, then 32 buckets per power of two,
 * so every reported value is at most 1/32 (about 3%) above the true one. Recording is a few
 * arithmetic operations and one array increment: no allocation, no lock.
 * Owned by one consumer thread while recording; merge with {@link #add} after that thread ended.
 */
final class LatencyHistogram {

    /** Sub-buckets per power of two, as a shift: 2^5 = 32, for a 3% resolution. */
    private static final int SUB_BITS = 5;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    /** One past the bucket of the largest long, 32 * (62 - 5) + 63 (see {@link #bucketOf}). */
    private static final int BUCKETS = SUB_BUCKETS * (Long.SIZE - 1 - SUB_BITS) + SUB_BUCKETS;

    private final long[] counts = new long[BUCKETS];
    private long total;
    private long max;

    /**
     * @param nanos a latency; negative values (clocks of two hosts) count as 0
     */
    void record(long nanos) {
        long value = Math.max(0, nanos);
        counts[bucketOf(value)]++;
        total++;
        if (value > max) {
            max = value;
        }
    }

    /** Adds every value of {@code other} to this one. */
    void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        max = Math.max(max, other.max);
    }

    /** @return how many values were recorded */
    long count() {
        return total;
    }

    /** @return the largest value recorded, exactly; 0 when empty */
    long max() {
        return max;
    }

    /**
     * @param quantile from 0 to 1, e.g. 0.999
     * @return the smallest bucket bound at or below which that share of the values lies
     *     (at most the exact maximum); 0 when empty
     */
    long quantile(double quantile) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(quantile * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(upperBound(i), max);
            }
        }
        return max;
    }

    /**
     * Values below 2 * SUB_BUCKETS have their own bucket; above, a value in [2^e, 2^(e+1)) keeps
     * its top SUB_BITS + 1 bits: shift = e - SUB_BITS, bucket = SUB_BUCKETS * shift + (value >>> shift).
     */
    static int bucketOf(long value) {
        if (value < 2 * SUB_BUCKETS) {
            return (int) value;
        }
        int shift = (Long.SIZE - 1 - Long.numberOfLeadingZeros(value)) - SUB_BITS;
        return SUB_BUCKETS * shift + (int) (value >>> shift);
    }

    /** @return the largest value that falls into the bucket */
    static long upperBound(int bucket) {
        if (bucket < 2 * SUB_BUCKETS) {
            return bucket;
        }
        int shift = bucket / SUB_BUCKETS - 1;
        long mantissa = bucket - (long) SUB_BUCKETS * shift;
        return ((mantissa + 1) << shift) - 1;
    }
}
