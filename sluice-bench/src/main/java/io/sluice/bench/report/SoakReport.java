package io.sluice.bench.report;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * The soak series of a run: one {@link ResourceSample} per sampling interval, and whether each
 * series stayed flat after warm-up ({@link SeriesTrend}). Immutable value.
 *
 * @param interval how often a sample was taken
 * @param samples the samples in order
 */
public record SoakReport(Duration interval, List<ResourceSample> samples) {

    /** No sampling happened (the run failed before its tasks started). */
    public static final SoakReport NONE = new SoakReport(Duration.ZERO, List.of());

    /** Netty's pooled arenas and the JVM's direct pool grow by chunks of a few MiB. */
    private static final long DIRECT_NOISE_BYTES = 16L << 20;
    /** The heap after a young collection varies with what survived it. */
    private static final long HEAP_NOISE_BYTES = 32L << 20;
    /** Buffers in use at a random instant under full load jitter by this much. */
    private static final long SEGMENT_NOISE = 64;

    /** Copies the samples. */
    public SoakReport {
        samples = List.copyOf(samples);
    }

    /** @return one verdict per series, in the order of {@link ResourceSample}'s components */
    List<SeriesTrend> trends() {
        return List.of(
                SeriesTrend.of("directBytes", series(ResourceSample::directBytes), DIRECT_NOISE_BYTES),
                SeriesTrend.of("nettyDirectBytes", series(ResourceSample::nettyDirectBytes), DIRECT_NOISE_BYTES),
                SeriesTrend.of("heapAfterGcBytes", series(ResourceSample::heapAfterGcBytes), HEAP_NOISE_BYTES),
                SeriesTrend.of("segmentsInUse", series(sample -> sample.segmentsInUse()), SEGMENT_NOISE),
                SeriesTrend.of("openConnections", series(sample -> sample.openConnections()), 0));
    }

    /** @return true when every series that could be judged was flat and at least one could */
    boolean allFlat() {
        boolean anyJudged = false;
        for (SeriesTrend trend : trends()) {
            if (trend.judged() && !trend.flat()) {
                return false;
            }
            anyJudged |= trend.judged();
        }
        return anyJudged;
    }

    /**
     * @param component one value of a sample
     * @return that value of every sample, in order
     */
    long[] series(ToLongFunction<ResourceSample> component) {
        long[] values = new long[samples.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = component.applyAsLong(samples.get(i));
        }
        return values;
    }

    /**
     * @param number the sample's number, from 1
     * @param sample the sample
     * @return the line printed for it, e.g. {@code sample 3 at 3:00: direct 137.0 MiB (...), ...}
     */
    public static String line(int number, ResourceSample sample) {
        return String.format(Locale.ROOT, "sample %d at %s: direct %s (Netty allocator %s), heap after GC %s,"
                        + " network buffers in use %d, open connections %d", number, Units.clock(sample.elapsedNanos()),
                mebibytesOrUnknown(sample.directBytes()), mebibytesOrUnknown(sample.nettyDirectBytes()),
                mebibytesOrUnknown(sample.heapAfterGcBytes()), sample.segmentsInUse(), sample.openConnections());
    }

    private static String mebibytesOrUnknown(long bytes) {
        return bytes < 0 ? "n/a" : Units.mebibytes(bytes);
    }
}
