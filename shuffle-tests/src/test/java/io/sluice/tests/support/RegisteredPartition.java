package io.sluice.tests.support;

import io.sluice.api.PartitionType;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleDescriptor;

/**
 * A partition registered with a fixture's shuffle master: a writer is deployed from it, gates read it.
 * Immutable; any thread.
 *
 * @param descriptor what the shuffle master made of the partition and its producer
 * @param numberOfSubpartitions one per consumer
 * @param type how the partition keeps its data
 */
public record RegisteredPartition(ShuffleDescriptor descriptor, int numberOfSubpartitions, PartitionType type) {

    /** A pipelined partition. */
    public RegisteredPartition(ShuffleDescriptor descriptor, int numberOfSubpartitions) {
        this(descriptor, numberOfSubpartitions, PartitionType.PIPELINED_BOUNDED);
    }

    /** @return the partition's id */
    public ResultPartitionId id() {
        return descriptor.partitionId();
    }
}
