package io.sluice.api;

/**
 * A snapshot of one environment's counters. Immutable value; any thread.
 *
 * @param totalSegments memory segments of the environment ({@code memory.total / segment-size})
 * @param availableSegments segments not held by any pool or buffer now; equals
 *     {@code totalSegments} once every writer and gate is closed
 * @param bytesSent data bytes written to the transport since start
 * @param bytesReceived data bytes read from the transport since start
 * @param buffersSent data buffers written to the transport since start
 * @param buffersReceived data buffers read from the transport since start
 * @param openConnections connections open now, each counted once, whether opened or accepted
 */
public record ShuffleMetrics(int totalSegments, int availableSegments,
                             long bytesSent, long bytesReceived,
                             long buffersSent, long buffersReceived,
                             int openConnections) {
}
