package io.sluice.tests.support;

/**
 * A tiny deterministic random source (Steele, Lea and Flood's SplitMix64): the same seed gives the same sequence on
 * every run, so a consumer can regenerate what its producer sent. Not thread-safe: one per thread.
 */
public final class SplitMix64 {

    /** The golden-ratio increment of SplitMix64. */
    private static final long GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    /** @param seed selects the sequence */
    public SplitMix64(long seed) {
        this.state = seed;
    }

    /** @return the next 64 random bits */
    public long nextLong() {
        long z = state += GAMMA;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * @param bound the exclusive upper bound, at least 1
     * @return a number from 0 to {@code bound - 1}; the slight modulo bias does not matter for test data
     */
    public int nextInt(int bound) {
        return (int) ((nextLong() >>> 1) % bound);
    }
}
