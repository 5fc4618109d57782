package io.sluice.bench.report;

import java.util.Arrays;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The time series of a run that {@code --report} charts: bytes moved, network buffers in use (out of how many) and the
 * writers' blocked time, sampled every {@link #INTERVAL_MILLIS} ms. When a long run fills {@link #MAX_POINTS}, every
 * other point is dropped and the interval between kept samples doubles, so memory stays bounded.
 *
 * <p>Owned by the monitor thread while the run goes (it calls {@link #sample}); read by the main thread after the
 * monitor stopped.
 */
public final class ReportSeries {

    /** How often a point is taken at first. */
    public static final long INTERVAL_MILLIS = 250;
    /** Points kept at most (per series); then the series thins out by half. */
    static final int MAX_POINTS = 2048;

    /** A run that recorded nothing (it failed before its tasks started, or a command without a monitor). */
    public static final ReportSeries NONE = new ReportSeries(() -> 0, () -> 0, () -> 0, BackpressureSource.NOT_MEASURED, 0);

    private final LongSupplier bytesDone;
    private final IntSupplier segmentsInUse;
    private final IntSupplier totalSegments;
    private final BackpressureSource backpressure;
    private final long start;

    private long[] elapsedNanos = new long[64];
    private long[] bytes = new long[64];
    private int[] inUse = new int[64];
    private int[] total = new int[64];
    private long[] blockedNanos = new long[64];
    private int size;
    /** Take one sample of this many ticks; doubles each time the series thins out. */
    private int stride = 1;
    private long ticks;

    /**
     * @param bytesDone bytes moved so far (verified by consumers, or sent by serve)
     * @param segmentsInUse network buffers in use now, over every environment of this process
     * @param totalSegments network buffers there are, over every environment
     * @param backpressure the writers' blocked time
     * @param start {@link System#nanoTime()} at the start of the run
     */
    public ReportSeries(LongSupplier bytesDone, IntSupplier segmentsInUse, IntSupplier totalSegments,
                 BackpressureSource backpressure, long start) {
        this.bytesDone = bytesDone;
        this.segmentsInUse = segmentsInUse;
        this.totalSegments = totalSegments;
        this.backpressure = backpressure;
        this.start = start;
    }

    /** Takes one point (or skips this tick while the series is thinned). Monitor thread. */
    public void sample() {
        if (ticks++ % stride != 0) {
            return;
        }
        if (size == MAX_POINTS) {
            thinOut();
        }
        if (size == elapsedNanos.length) {
            int grown = Math.min(MAX_POINTS, size * 2);
            elapsedNanos = Arrays.copyOf(elapsedNanos, grown);
            bytes = Arrays.copyOf(bytes, grown);
            inUse = Arrays.copyOf(inUse, grown);
            total = Arrays.copyOf(total, grown);
            blockedNanos = Arrays.copyOf(blockedNanos, grown);
        }
        elapsedNanos[size] = System.nanoTime() - start;
        bytes[size] = bytesDone.getAsLong();
        inUse[size] = segmentsInUse.getAsInt();
        total[size] = totalSegments.getAsInt();
        blockedNanos[size] = backpressure.blockedNanos();
        size++;
    }

    private void thinOut() {
        int kept = 0;
        for (int i = 0; i < size; i += 2) {
            elapsedNanos[kept] = elapsedNanos[i];
            bytes[kept] = bytes[i];
            inUse[kept] = inUse[i];
            total[kept] = total[i];
            blockedNanos[kept] = blockedNanos[i];
            kept++;
        }
        size = kept;
        stride *= 2;
    }

    /** @return how many points there are */
    int size() {
        return size;
    }

    /** @return seconds since the start, at point {@code i} */
    double seconds(int i) {
        return elapsedNanos[i] / 1e9;
    }

    /** @return the throughput between point {@code i - 1} (or the start) and point {@code i}, in GB/s (10^9 bytes) */
    double gigabytesPerSecond(int i) {
        long previousNanos = i == 0 ? 0 : elapsedNanos[i - 1];
        long previousBytes = i == 0 ? 0 : bytes[i - 1];
        long nanos = elapsedNanos[i] - previousNanos;
        return nanos <= 0 ? 0 : (bytes[i] - previousBytes) / (double) nanos;
    }

    /** @return the share of network buffers in use at point {@code i}, in percent; 0 when there are none */
    double poolUsagePercent(int i) {
        return total[i] == 0 ? 0 : 100.0 * inUse[i] / total[i];
    }

    /** @return network buffers in use at point {@code i} */
    int segmentsInUse(int i) {
        return inUse[i];
    }

    /** @return true when the writers' blocked time was measured (see {@link BackpressureSource}) */
    boolean backpressureMeasured() {
        return size > 0 && blockedNanos[0] >= 0;
    }

    /**
     * @return milliseconds blocked per second, per writer on average, between point {@code i - 1} (or the start) and
     *     point {@code i}; 0 when not measured
     */
    double backpressuredMsPerSecond(int i) {
        if (!backpressureMeasured() || backpressure.writers() == 0) {
            return 0;
        }
        long previousNanos = i == 0 ? 0 : elapsedNanos[i - 1];
        long previousBlocked = i == 0 ? 0 : blockedNanos[i - 1];
        long nanos = elapsedNanos[i] - previousNanos;
        return nanos <= 0 ? 0 : 1000.0 * (blockedNanos[i] - previousBlocked) / nanos / backpressure.writers();
    }
}
