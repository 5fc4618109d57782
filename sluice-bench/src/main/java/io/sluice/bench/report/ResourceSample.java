package io.sluice.bench.report;

/**
 * One soak sample: what the process holds at one moment of a long run. Immutable value.
 *
 * @param elapsedNanos since the run started
 * @param directBytes memory of the JVM's "direct" buffer pool (java.nio direct buffers, Netty's pooled
 *     arenas included when Netty allocates them through the JVM)
 * @param nettyDirectBytes direct memory Netty's default allocator holds (a part of {@code directBytes}
 *     when Netty uses the JVM's buffers, in addition to it when Netty allocates without them)
 * @param heapAfterGcBytes heap in use after the latest garbage collection, or -1 before the first one
 * @param segmentsInUse network buffers in use over every environment of this process
 * @param openConnections open data connections over every environment, both ends counted
 */
public record ResourceSample(long elapsedNanos, long directBytes, long nettyDirectBytes, long heapAfterGcBytes,
                             int segmentsInUse, int openConnections) {
}
