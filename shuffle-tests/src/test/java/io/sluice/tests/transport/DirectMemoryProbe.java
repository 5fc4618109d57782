package io.sluice.tests.transport;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;

/**
 * Direct memory held by Netty's default allocator, the one every Sluice channel allocates from, as its own metrics
 * report it; and a sampler thread that records the peak while an attack runs. Sampler: one thread, stopped by
 * {@link #close()}.
 */
final class DirectMemoryProbe implements AutoCloseable {

    private static final long SAMPLE_MILLIS = 5;

    private final Thread sampler;
    private volatile long peak;
    private volatile boolean stopped;

    private DirectMemoryProbe() {
        peak = usedDirectMemory();
        sampler = new Thread(this::sample, "direct-memory-probe");
        sampler.setDaemon(true);
    }

    /** Starts sampling. */
    static DirectMemoryProbe start() {
        DirectMemoryProbe probe = new DirectMemoryProbe();
        probe.sampler.start();
        return probe;
    }

    /** Bytes of direct memory Netty's default allocator holds now. */
    static long usedDirectMemory() {
        ByteBufAllocator allocator = ByteBufAllocator.DEFAULT;
        if (!(allocator instanceof ByteBufAllocatorMetricProvider metrics)) {
            throw new AssertionError("Netty's default allocator " + allocator.getClass().getName()
                    + " reports no metrics");
        }
        return metrics.metric().usedDirectMemory();
    }

    /** The most seen since {@link #start()}. */
    long peak() {
        return peak;
    }

    private void sample() {
        while (!stopped) {
            long now = usedDirectMemory();
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
