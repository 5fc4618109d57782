package io.sluice.bench.command;

/** The partitions {@code run} writes ({@code --partition-type}). */
enum PartitionType {
    /** Consumers read while producers write. */
    PIPELINED,
    /** Producers write everything to disk first, consumers read it afterwards. */
    BLOCKING;

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
