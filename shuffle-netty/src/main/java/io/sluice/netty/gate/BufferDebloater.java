package io.sluice.netty.gate;

import io.sluice.netty.config.DebloatSettings;

/**
 * The buffer size calculation of one gate's debloating: from the bytes the consumer took and the time it was busy
 * (the time it did not find the gate empty) since the previous sample, the gate's throughput; from the throughput,
 * the buffer size that keeps the configured target time of data in flight, {@code throughput x target / buffers in
 * flight}; averaged over the configured number of samples (an exponential moving average of weight
 * {@code 2 / (samples + 1)}, each step at most doubling the average, so that it grows as fast as it shrinks), within
 * the minimum and the segment size. A size is worth announcing when it differs from the one announced last by at
 * least the threshold percentage of it, or reaches the minimum or the segment size.
 *
 * <p>The average starts at the starting size, which the gate announces at its setup (as Flink's debloater starts at
 * {@code taskmanager.memory.starting-segment-size}): a job that is backpressured from its start queues small buffers
 * while the measurement grows them, instead of whole segments that take seconds to drain. Until a first sample with
 * data, nothing more is announced: a gate that has taken nothing yet keeps the starting size instead of shrinking it
 * on a throughput of zero. A sample whose time was all idle keeps the throughput measured before.
 *
 * <p>Threads: one caller at a time (the gate serialises its {@code triggerDebloating}); times are nanoseconds on one
 * clock ({@link System#nanoTime()} in the gate, any in tests).
 */
final class BufferDebloater {

    /** What {@link #recalculate} returns when nothing is to be announced. */
    static final int NO_CHANGE = -1;

    private static final double NANOS_PER_SECOND = 1_000_000_000d;

    private final double targetSeconds;
    private final int minBufferSize;
    private final int maxBufferSize;
    private final int thresholdPercentage;
    /** Weight of a new sample in the moving average. */
    private final double alpha;

    /** Whether a first sample fixed the start of the measurement. */
    private boolean started;
    private long lastNanos;
    private long lastBytes;
    private long lastIdleNanos;
    /** Bytes per second, as measured by the latest sample with busy time; 0 before. */
    private long throughput;
    /** Whether some sample measured bytes: only then is a size announced. */
    private boolean measured;
    /** The moving average of the wanted buffer size, within [min, max]. */
    private double averageSize;
    /** The size announced last: the starting size (which the gate announces at its setup) until it recalculates. */
    private int announcedSize;

    /**
     * @param settings    the environment's debloating options
     * @param segmentSize the largest buffer: a whole segment
     */
    BufferDebloater(DebloatSettings settings, int segmentSize) {
        this.targetSeconds = settings.target().toNanos() / NANOS_PER_SECOND;
        this.maxBufferSize = segmentSize;
        this.minBufferSize = Math.min(settings.minBufferSize(), segmentSize);
        this.thresholdPercentage = settings.thresholdPercentage();
        this.alpha = 2.0 / (settings.samples() + 1);
        int startingSize = settings.effectiveStartingBufferSize(segmentSize);
        this.averageSize = startingSize;
        this.announcedSize = startingSize;
    }

    /**
     * Takes one sample and says what to announce.
     *
     * @param nowNanos     the time of the sample
     * @param bytesIn      bytes the consumer took from the gate so far (a running total)
     * @param idleNanos    time the consumer spent finding the gate empty so far (a running total)
     * @param buffersInUse buffers in flight towards the gate now (queued in it, and announced as backlog)
     * @return the buffer size to announce, or {@link #NO_CHANGE}
     */
    int recalculate(long nowNanos, long bytesIn, long idleNanos, int buffersInUse) {
        if (!started) {
            started = true;
            remember(nowNanos, bytesIn, idleNanos);
            return NO_CHANGE;
        }
        long busyNanos = (nowNanos - lastNanos) - (idleNanos - lastIdleNanos);
        long bytes = bytesIn - lastBytes;
        remember(nowNanos, bytesIn, idleNanos);
        if (busyNanos > 0) {
            throughput = (long) (bytes * NANOS_PER_SECOND / busyNanos);
            measured |= bytes > 0;
        }
        if (!measured) {
            return NO_CHANGE;
        }
        double wantedInFlight = throughput * targetSeconds;
        double wanted = Math.min(wantedInFlight / Math.max(1, buffersInUse), 2 * averageSize);
        averageSize += alpha * (wanted - averageSize);
        averageSize = Math.max(minBufferSize, Math.min(maxBufferSize, averageSize));
        int size = (int) Math.round(averageSize);
        if (!worthAnnouncing(size)) {
            return NO_CHANGE;
        }
        announcedSize = size;
        return size;
    }

    private void remember(long nowNanos, long bytesIn, long idleNanos) {
        lastNanos = nowNanos;
        lastBytes = bytesIn;
        lastIdleNanos = idleNanos;
    }

    private boolean worthAnnouncing(int size) {
        if (size == announcedSize) {
            return false;
        }
        if (size <= minBufferSize || size >= maxBufferSize) {
            return true;
        }
        long change = Math.abs((long) size - announcedSize) * 100;
        return change >= (long) announcedSize * thresholdPercentage;
    }

    /** The size announced last: the starting size until a recalculation announced another. */
    int announcedSize() {
        return announcedSize;
    }

    /** The throughput of the latest sample with busy time, in bytes per second. */
    long throughput() {
        return throughput;
    }
}
