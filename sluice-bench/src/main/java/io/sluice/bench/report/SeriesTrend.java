package io.sluice.bench.report;

import java.util.Locale;

/**
 * Whether one soak series (say, heap after GC per minute) stayed flat after warm-up. Immutable value.
 *
 * <p>Definition: the first tenth of the samples (at least one) is warm-up and ignored. The rest is
 * cut in two halves; the <em>baseline</em> is the largest value of the earlier half, and the series
 * is flat when the largest value of the later half is at most the baseline plus 10 % of it, or plus
 * the series' noise floor when that is larger (a pooled allocator grows by whole chunks; a gauge
 * sampled under load jitters). A leak grows the later half past that; a working set that reached its
 * size in the earlier half does not. Fewer than two samples after warm-up, or a series the JVM does
 * not report (-1), cannot be judged.
 *
 * @param name the series, e.g. {@code heapAfterGcBytes}
 * @param judged false when there are too few samples or no values
 * @param baseline largest value of the earlier half after warm-up
 * @param laterMax largest value of the later half
 * @param allowed the most the later half may reach and still be flat
 */
record SeriesTrend(String name, boolean judged, long baseline, long laterMax, long allowed) {

    /** Growth within this fraction of the baseline is noise, not a leak. */
    static final double TOLERANCE = 0.10;
    /** One sample in this many is warm-up. */
    static final int WARM_UP_DIVISOR = 10;

    /**
     * @param name the series
     * @param values the series in sampling order; -1 where the value was not available
     * @param noiseFloor growth up to this much is noise whatever the baseline
     * @return the verdict
     */
    static SeriesTrend of(String name, long[] values, long noiseFloor) {
        int warmUp = Math.max(1, values.length / WARM_UP_DIVISOR);
        int rest = values.length - warmUp;
        if (rest < 2) {
            return new SeriesTrend(name, false, -1, -1, -1);
        }
        int laterStart = warmUp + (rest + 1) / 2;
        long baseline = max(values, warmUp, laterStart);
        long laterMax = max(values, laterStart, values.length);
        if (baseline < 0 || laterMax < 0) {
            return new SeriesTrend(name, false, -1, -1, -1);
        }
        long allowed = baseline + Math.max((long) (baseline * TOLERANCE), noiseFloor);
        return new SeriesTrend(name, true, baseline, laterMax, allowed);
    }

    /** @return true when judged and the later half stayed within the allowance */
    boolean flat() {
        return judged && laterMax <= allowed;
    }

    /** @return e.g. {@code flat (baseline 12, later max 12, allowed 13)}, {@code GREW (...)} or {@code too few samples} */
    String describe() {
        if (!judged) {
            return "not judged (too few samples after warm-up)";
        }
        return String.format(Locale.ROOT, "%s (baseline %d, later max %d, allowed %d)", flat() ? "flat" : "GREW",
                baseline, laterMax, allowed);
    }

    private static long max(long[] values, int from, int to) {
        long max = Long.MIN_VALUE;
        boolean missing = false;
        for (int i = from; i < to; i++) {
            missing |= values[i] < 0;
            max = Math.max(max, values[i]);
        }
        return missing ? -1 : max;
    }
}
