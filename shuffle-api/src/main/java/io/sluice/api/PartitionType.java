package io.sluice.api;

/** How a result partition's data is kept and handed out. More types may be added. */
public enum PartitionType {
    /**
     * Streamed to consumers while it is produced, in a bounded amount of memory: a producer
     * blocks when its consumers do not keep up (backpressure).
     */
    PIPELINED_BOUNDED
}
