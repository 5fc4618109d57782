package io.sluice.tests.transport;

import io.netty.buffer.ByteBufAllocatorMetric;

/**
 * The peak of the direct memory an allocator reports while an attack runs (the tests give the data server's
 * channels an unpooled allocator of their own, whose metric counts the bytes of live buffers exactly).
 * Sampler: one thread, stopped by {@link #close()}.
 */
final class DirectMemoryProbe implements AutoCloseable {

    private static final long SAMPLE_MILLIS = 5;

    private final ByteBufAllocatorMetric metric;
    private final Thread sampler;
    private volatile long peak;
    private volatile boolean stopped;

    private DirectMemoryProbe(ByteBufAllocatorMetric metric) {
        this.metric = metric;
        peak = metric.usedDirectMemory();
        sampler = new Thread(this::sample, "direct-memory-probe");
        sampler.setDaemon(true);
    }

    /** Starts sampling. */
    static DirectMemoryProbe start(ByteBufAllocatorMetric metric) {
        DirectMemoryProbe probe = new DirectMemoryProbe(metric);
        probe.sampler.start();
        return probe;
    }

    /** The most seen since {@link #start}. */
    long peak() {
        return peak;
    }

    private void sample() {
        while (!stopped) {
            long now = metric.usedDirectMemory();
            if (now > peak) {
                peak = now;
            }
            try {
                Thread.sleep(SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopped = true;
        sampler.join(5_000);
    }
}
