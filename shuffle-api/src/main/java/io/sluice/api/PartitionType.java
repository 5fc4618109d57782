package io.sluice.api;

/** How a result partition's data is kept and handed out. More types may be added. */
public enum PartitionType {
    /**
     * Streamed to consumers while it is produced, in a bounded amount of memory: a producer
     * blocks when its consumers do not keep up (backpressure).
     */
    PIPELINED_BOUNDED,
    /**
     * Written to files in {@code shuffle.tmp-dirs} (memory use independent of the data's size) and readable once the
     * producer called {@code finish()}, by any number of consumers, one after another or at the same time, until the
     * partition is released.
     */
    BLOCKING
}
