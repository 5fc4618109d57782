package io.sluice.bench.run;

import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
import io.sluice.bench.report.MemoryPeak;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Samples the network buffers in use in every environment and the process's direct memory, and
 * keeps the peaks. {@link #sample()} is called by the monitor thread only; {@link #peak()} after
 * the monitor stopped (its shutdown orders the writes before the read).
 */
final class MemorySampler {

    /** How often to sample: often enough to catch a peak that lasts a few milliseconds. */
    static final long INTERVAL_MILLIS = 10;

    private final List<ShuffleEnvironment> environments;
    private final long segmentSize;
    private final BufferPoolMXBean directPool;
    private int peakBuffers;     // monitor thread only
    private int totalBuffers;    // monitor thread only
    private long peakDirect;     // monitor thread only

    /**
     * @param environments the environments to watch
     * @param segmentSize bytes of one network buffer
     */
    MemorySampler(List<ShuffleEnvironment> environments, long segmentSize) {
        this.environments = List.copyOf(environments);
        this.segmentSize = segmentSize;
        this.directPool = directPool();
    }

    /** Takes one sample. */
    void sample() {
        int used = 0;
        int total = 0;
        for (ShuffleEnvironment environment : environments) {
            ShuffleMetrics metrics = environment.metrics();
            used += metrics.totalSegments() - metrics.availableSegments();
            total += metrics.totalSegments();
        }
        totalBuffers = total;
        if (used > peakBuffers) {
            peakBuffers = used;
        }
        if (directPool != null) {
            peakDirect = Math.max(peakDirect, directPool.getMemoryUsed());
        }
    }

    /** @return the peaks seen so far, with the process's peak RSS */
    MemoryPeak peak() {
        return new MemoryPeak(peakBuffers * segmentSize, totalBuffers * segmentSize, peakBuffers, totalBuffers,
                peakDirect, processPeakRss());
    }

    /** @return the JVM's "direct" buffer pool, or null where the JVM has none */
    static BufferPoolMXBean directPool() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool;
            }
        }
        return null;
    }

    /** @return VmHWM of /proc/self/status in bytes, or -1 off Linux */
    static long processPeakRss() {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return -1;
        }
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmHWM:")) {
                    String kilobytes = line.substring("VmHWM:".length()).replace("kB", "").trim();
                    return Long.parseLong(kilobytes) * 1024;
                }
            }
            return -1;
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot read the peak RSS from " + status, e);
        }
    }
}
