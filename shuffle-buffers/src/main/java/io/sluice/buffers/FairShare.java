package io.sluice.buffers;

import java.util.Arrays;

/**
 * Splits spare segments among local pools: every pool gets its minimum, and the segments left over are shared
 * evenly, never giving a pool more than its maximum ("water filling"). Pure function; any thread.
 */
final class FairShare {

    private FairShare() {
    }

    /**
     * Pool sizes for pools with the given minimums and maximums when {@code spare} segments are free beyond all
     * minimums. Sizes differ by at most one between pools that did not hit their maximum, and their sum is
     * {@code Σ min + min(spare, Σ (max - min))}.
     */
    static int[] distribute(int[] minimums, int[] maximums, int spare) {
        int pools = minimums.length;
        int[] sizes = new int[pools];
        // visit pools by ascending headroom so that capped pools release their unused share to the others
        long[] byHeadroom = new long[pools];
        for (int i = 0; i < pools; i++) {
            long headroom = (long) maximums[i] - minimums[i];
            byHeadroom[i] = (headroom << 32) | i; // headroom fits in 32 bits: max and min are non-negative ints
            sizes[i] = minimums[i];
        }
        Arrays.sort(byHeadroom);
        long left = spare;
        for (int rank = 0; rank < pools; rank++) {
            int pool = (int) (byHeadroom[rank] & 0xFFFF_FFFFL);
            long headroom = byHeadroom[rank] >>> 32;
            long share = Math.min(headroom, left / (pools - rank));
            sizes[pool] += (int) share;
            left -= share;
        }
        return sizes;
    }
}
