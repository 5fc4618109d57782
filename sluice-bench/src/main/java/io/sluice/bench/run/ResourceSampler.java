package io.sluice.bench.run;

import io.sluice.bench.report.ResourceSample;
import com.sun.management.GcInfo;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Takes the soak samples of a run (see {@link ResourceSample}): direct memory of the JVM and of
 * Netty's allocator, heap after the latest GC, network buffers in use and open connections.
 * Stateless apart from the beans it reads; called by the monitor thread.
 */
final class ResourceSampler {

    private final Environments environments;
    private final BufferPoolMXBean directPool;
    private final Set<String> heapPools = new HashSet<>();

    /** @param environments the environments whose buffers and connections to count */
    ResourceSampler(Environments environments) {
        this.environments = environments;
        this.directPool = MemorySampler.directPool();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
    }

    /**
     * @param elapsedNanos since the run started
     * @return what the process holds now
     */
    ResourceSample sample(long elapsedNanos) {
        long direct = directPool == null ? -1 : directPool.getMemoryUsed();
        return new ResourceSample(elapsedNanos, direct, nettyDirect(), heapAfterLatestGc(),
                environments.segmentsInUse(), environments.openConnections());
    }

    private static long nettyDirect() {
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
            return provider.metric().usedDirectMemory();
        }
        return -1;
    }

    /** @return heap in use after the collection that ended last, over every collector; -1 before the first */
    private long heapAfterLatestGc() {
        GcInfo latest = null;
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof com.sun.management.GarbageCollectorMXBean collector) {
                GcInfo info = collector.getLastGcInfo();
                if (info != null && (latest == null || info.getEndTime() > latest.getEndTime())) {
                    latest = info;
                }
            }
        }
        if (latest == null) {
            return -1;
        }
        long used = 0;
        for (Map.Entry<String, MemoryUsage> pool : latest.getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                used += pool.getValue().getUsed();
            }
        }
        return used;
    }
}
