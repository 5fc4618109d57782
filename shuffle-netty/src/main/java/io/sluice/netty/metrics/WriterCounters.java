package io.sluice.netty.metrics;

import io.sluice.api.ResultPartitionId;
import io.sluice.api.WriterMetrics;
import io.sluice.buffers.LocalBufferPool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;

/**
 * The counters a writer keeps for {@link WriterMetrics} beyond its bytes and buffers: records out and the time its
 * producer was blocked waiting for a buffer (backpressure).
 *
 * <p>Threads: {@link #onRecords}, {@link #beginWait()} and {@link #endWait} by the writer's producer, one thread at
 * a time (a pipelined writer's buffers are confined to its producer thread; a blocking partition's {@code emitLock}
 * serializes its producers); the readers by any thread, without a lock. Cost on the data path:
 * one opaque store per record (a plain store on common hardware, no fence), and a {@link WaitTimer}'s cost per wait
 * for a buffer (only when the pool is empty).
 */
public final class WriterCounters {

    private static final VarHandle RECORDS_OUT;

    static {
        try {
            RECORDS_OUT = MethodHandles.lookup().findVarHandle(WriterCounters.class, "recordsOut", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Written by the producer with opaque stores, read with opaque loads: never torn, eventually visible. */
    @SuppressWarnings("unused") // through RECORDS_OUT
    private long recordsOut;
    private final WaitTimer waits = new WaitTimer();

    /** Counts {@code records} more records. Producer thread. */
    public void onRecords(int records) {
        RECORDS_OUT.setOpaque(this, (long) RECORDS_OUT.getOpaque(this) + records);
    }

    /** The producer starts waiting for a buffer. Producer thread. @return the start, for {@link #endWait} */
    public long beginWait() {
        return waits.begin();
    }

    /** The wait that began at {@code start} ended (with a buffer or an exception). Producer thread. */
    public void endWait(long start) {
        waits.end(start);
    }

    /** Records counted so far; any thread. */
    public long recordsOut() {
        return (long) RECORDS_OUT.getOpaque(this);
    }

    /** Nanoseconds the producer waited for buffers, the wait in progress included; any thread. */
    public long backpressuredNanos(long now) {
        return waits.totalNanos(now);
    }

    /**
     * The writer's snapshot. Reads the pool's usage under the pool's lock for a moment (never the writer's emit
     * lock), so it does not wait for a blocked producer.
     *
     * @param pool    the writer's pool, or null before setup
     * @param backlog data buffers queued per subpartition, or an empty list
     */
    public WriterMetrics snapshot(ResultPartitionId partitionId, String ownerName, long bytesOut, long buffersOut,
                                  LocalBufferPool pool, List<Integer> backlog) {
        long now = System.nanoTime();
        boolean live = pool != null && !pool.isDestroyed();
        return new WriterMetrics(partitionId, ownerName, now, bytesOut, buffersOut, recordsOut(),
                backpressuredNanos(now), live ? pool.bestEffortGetNumOfUsedBuffers() : 0,
                live ? pool.getNumBuffers() : 0, backlog);
    }
}
