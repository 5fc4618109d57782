package io.sluice.api;

import java.util.List;

/**
 * A snapshot of one writer's figures ({@link ResultPartitionWriter#metrics()}). Immutable value; any thread.
 *
 * <p>Backpressure is reported as a cumulative counter, {@link #backpressuredNanos()}: the time the producer spent
 * blocked in {@code emitRecord}/{@code broadcastRecord} waiting for a free buffer, including a wait still in
 * progress when the snapshot was taken. The rate Flink calls {@code backPressuredTimeMsPerSecond} is the counter's
 * growth between two snapshots: {@link #backPressuredTimeMsPerSecond(WriterMetrics)}. 1000 ms/s means the producer
 * did nothing but wait.
 *
 * @param partitionId            the partition the writer produces
 * @param ownerName              the producing task, as given to {@code createResultPartitionWriters}
 * @param timestampNanos         {@link System#nanoTime()} when the snapshot was taken
 * @param bytesOut               bytes written into buffers so far, record framing included
 * @param buffersOut             data buffers completed so far
 * @param recordsOut             records emitted so far (a broadcast record counts once per subpartition)
 * @param backpressuredNanos     total time blocked waiting for a buffer, in nanoseconds, the current wait included
 * @param outputBuffersInUse     buffers of the writer's pool out in use now (being filled, queued, or in flight)
 * @param outputPoolSize         the pool's current size in buffers; 0 before setup and after release
 * @param backlogPerSubpartition data buffers queued per subpartition, not yet taken by its consumer; empty
 *                               before setup and for a writer that keeps its data on disk
 */
public record WriterMetrics(ResultPartitionId partitionId, String ownerName, long timestampNanos,
                            long bytesOut, long buffersOut, long recordsOut, long backpressuredNanos,
                            int outputBuffersInUse, int outputPoolSize, List<Integer> backlogPerSubpartition) {

    /** Copies the backlog list, so the snapshot stays immutable. */
    public WriterMetrics {
        backlogPerSubpartition = List.copyOf(backlogPerSubpartition);
    }

    /** @return {@code outputBuffersInUse / outputPoolSize}, in [0, 1]; 0 without a pool */
    public double outputPoolUsage() {
        return RateSince.usage(outputBuffersInUse, outputPoolSize);
    }

    /** @return the sum of {@link #backlogPerSubpartition()} */
    public int totalBacklog() {
        int sum = 0;
        for (int backlog : backlogPerSubpartition) {
            sum += backlog;
        }
        return sum;
    }

    /**
     * @param earlier a snapshot of the same writer taken before this one
     * @return milliseconds per second the producer was blocked between the two snapshots, in [0, 1000]
     */
    public double backPressuredTimeMsPerSecond(WriterMetrics earlier) {
        return RateSince.msPerSecond(backpressuredNanos, earlier.backpressuredNanos, timestampNanos,
                earlier.timestampNanos);
    }
}
