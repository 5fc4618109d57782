package io.sluice.api;

import java.util.List;

/**
 * A snapshot of one environment's counters. Immutable value; any thread.
 *
 * <p>Besides the environment-wide counters it holds one entry per writer, gate and connection alive when the
 * snapshot was taken (see {@link WriterMetrics}, {@link GateMetrics}, {@link ConnectionMetrics}), and sums over
 * them. A writer leaves the list once it is released (read to its end after {@code finish()}, closed, or failed),
 * a gate once it is closed, a connection once it is closed; the sums cover the entries in the lists only.
 *
 * @param totalSegments     memory segments of the environment ({@code memory.total / segment-size})
 * @param availableSegments segments not held by any pool or buffer now; equals
 *                          {@code totalSegments} once every writer and gate is closed
 * @param bytesSent         data bytes written to the transport since start
 * @param bytesReceived     data bytes read from the transport since start
 * @param buffersSent       data buffers written to the transport since start
 * @param buffersReceived   data buffers read from the transport since start
 * @param openConnections   connections open now, each counted once, whether opened or accepted
 * @param writers           the writers alive now (not released), in no particular order
 * @param gates             the gates alive now (not closed), in no particular order
 * @param connections       the connections open now
 */
public record ShuffleMetrics(int totalSegments, int availableSegments,
                             long bytesSent, long bytesReceived,
                             long buffersSent, long buffersReceived,
                             int openConnections,
                             List<WriterMetrics> writers, List<GateMetrics> gates,
                             List<ConnectionMetrics> connections) {

    /** Copies the lists, so the snapshot stays immutable. */
    public ShuffleMetrics {
        writers = List.copyOf(writers);
        gates = List.copyOf(gates);
        connections = List.copyOf(connections);
    }

    /** The environment-wide counters alone, without writers, gates or connections. */
    public ShuffleMetrics(int totalSegments, int availableSegments, long bytesSent, long bytesReceived,
                          long buffersSent, long buffersReceived, int openConnections) {
        this(totalSegments, availableSegments, bytesSent, bytesReceived, buffersSent, buffersReceived,
                openConnections, List.of(), List.of(), List.of());
    }

    /** @return {@code 1 - availableSegments / totalSegments}: the share of the environment's memory in use */
    public double memoryUsage() {
        return 1 - RateSince.usage(availableSegments, totalSegments);
    }

    /** @return the writers' {@link WriterMetrics#backpressuredNanos()} summed */
    public long backpressuredNanos() {
        long sum = 0;
        for (WriterMetrics writer : writers) {
            sum += writer.backpressuredNanos();
        }
        return sum;
    }

    /** @return the writers' {@link WriterMetrics#recordsOut()} summed */
    public long recordsOut() {
        long sum = 0;
        for (WriterMetrics writer : writers) {
            sum += writer.recordsOut();
        }
        return sum;
    }

    /** @return the writers' {@link WriterMetrics#totalBacklog()} summed: buffers queued for consumers */
    public int outputBacklog() {
        int sum = 0;
        for (WriterMetrics writer : writers) {
            sum += writer.totalBacklog();
        }
        return sum;
    }

    /** @return the writers' buffers in use divided by their pools' sizes, in [0, 1] */
    public double outputPoolUsage() {
        int used = 0;
        int size = 0;
        for (WriterMetrics writer : writers) {
            used += writer.outputBuffersInUse();
            size += writer.outputPoolSize();
        }
        return RateSince.usage(used, size);
    }

    /** @return the gates' input buffers in use divided by all their input buffers, in [0, 1] */
    public double inputPoolUsage() {
        int used = 0;
        int size = 0;
        for (GateMetrics gate : gates) {
            used += gate.exclusiveBuffersInUse() + gate.floatingBuffersInUse();
            size += gate.exclusiveBuffers() + gate.floatingBuffers();
        }
        return RateSince.usage(used, size);
    }

    /** @return the gates' {@link GateMetrics#queuedBuffers()} summed */
    public int queuedInputBuffers() {
        int sum = 0;
        for (GateMetrics gate : gates) {
            sum += gate.queuedBuffers();
        }
        return sum;
    }

    /** @return the gates' {@link GateMetrics#waitingForDataNanos()} summed */
    public long waitingForDataNanos() {
        long sum = 0;
        for (GateMetrics gate : gates) {
            sum += gate.waitingForDataNanos();
        }
        return sum;
    }
}
