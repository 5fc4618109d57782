package io.sluice.netty.testing;

import io.sluice.testing.Await;
import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.ResultPartitionId;
import io.sluice.buffers.LocalBufferPool;
import io.sluice.buffers.NetworkBufferPool;
import io.sluice.netty.partition.ResultPartition;
import io.sluice.netty.partition.ResultPartitionManager;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One test's in-process shuffle without an environment: a global {@link NetworkBufferPool}, a
 * {@link ResultPartitionManager}, and one scheduler for flushes and request retries. Partitions come from
 * {@link #newPartition()}. {@link #close()} releases everything the fixture made and asserts that every segment
 * went back to the global pool (docs/behaviours.md H-1).
 *
 * <p>Threads: build and close on the test thread; close after every worker thread of the test has stopped and
 * recycled what it read.
 */
public final class PartitionFixture implements AutoCloseable {

    /** Small segments: records span buffers after a few bytes, and hundreds of buffers cost nothing. */
    public static final int DEFAULT_SEGMENT_SIZE = 64;

    /** A record that fills one segment of {@link #DEFAULT_SEGMENT_SIZE} exactly with its 4-byte length. */
    public static final int ONE_BUFFER_RECORD = DEFAULT_SEGMENT_SIZE - 4;

    /** Enough for every unit test's pools together. */
    public static final int DEFAULT_SEGMENTS = 2048;

    private final NetworkBufferPool globalPool;
    private final ResultPartitionManager manager = new ResultPartitionManager();
    private final ScheduledThreadPoolExecutor scheduler;
    private final List<ResultPartition> partitions = new ArrayList<>(); // test thread only
    private boolean closed; // test thread only

    public PartitionFixture() {
        this(DEFAULT_SEGMENTS, DEFAULT_SEGMENT_SIZE);
    }

    public PartitionFixture(int segments, int segmentSize) {
        this.globalPool = new NetworkBufferPool(segments, segmentSize);
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "test-scheduler");
            thread.setDaemon(true);
            return thread;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
    }

    /** A builder of a partition of this fixture; see {@link PartitionBuilder} for the defaults. */
    public PartitionBuilder newPartition() {
        return new PartitionBuilder(this);
    }

    /** Set up partition with {@code subpartitions} subpartitions and the builder's other defaults. */
    public ResultPartition setUpPartition(int subpartitions) throws IOException {
        return newPartition().subpartitions(subpartitions).setUp();
    }

    public NetworkBufferPool globalPool() {
        return globalPool;
    }

    public ResultPartitionManager manager() {
        return manager;
    }

    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    public int segmentSize() {
        return globalPool.getMemorySegmentSize();
    }

    ResultPartition create(PartitionBuilder spec) {
        ResultPartition partition = new ResultPartition(spec.id(), spec.owner(), spec.subpartitions(), manager,
                (ResultPartitionId id, int subpartitions) -> createPool(spec), scheduler, spec.flushInterval(),
                spec.notifications(), spec.clock());
        partitions.add(partition);
        return partition;
    }

    private LocalBufferPool createPool(PartitionBuilder spec) throws InsufficientBuffersException {
        try {
            return globalPool.createBufferPool(spec.minBuffers(), spec.maxBuffers(), spec.subpartitions(),
                    spec.maxBuffersPerSubpartition());
        } catch (IOException e) {
            throw new InsufficientBuffersException("test partition " + spec.id() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Releases every partition, stops the scheduler, and asserts that no segment leaked. Idempotent.
     */
    @Override
    public void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        manager.shutdown(new IllegalStateException("test fixture closed"));
        for (ResultPartition partition : partitions) {
            partition.release(null);
        }
        scheduler.shutdownNow();
        scheduler.awaitTermination(Await.EVENTUALLY.toMillis(), TimeUnit.MILLISECONDS);
        MemoryAssertions.assertAllSegmentsReturned(globalPool);
        globalPool.destroy();
    }
}
