package io.sluice.flink;

import org.apache.flink.runtime.clusterframework.types.ResourceID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.shuffle.ShuffleDescriptor;

import java.util.Objects;
import java.util.Optional;

/**
 * Flink's view of one Sluice partition: Flink's partition id, the TaskManager that produces it, and the descriptor
 * Sluice's shuffle master made for it (which tells consumers where and how to read it). Shipped by Flink from the
 * JobManager to the producer and the consumers. Immutable; any thread.
 */
public final class SluiceShuffleDescriptor implements ShuffleDescriptor {

    private static final long serialVersionUID = 1L;

    private final ResultPartitionID flinkPartitionId;
    private final ResourceID producerLocation;
    private final io.sluice.api.ShuffleDescriptor sluiceDescriptor;

    /**
     * @param flinkPartitionId Flink's id of the partition
     * @param producerLocation the TaskManager whose environment produces it
     * @param sluiceDescriptor Sluice's descriptor of the same partition
     */
    public SluiceShuffleDescriptor(ResultPartitionID flinkPartitionId, ResourceID producerLocation,
                                   io.sluice.api.ShuffleDescriptor sluiceDescriptor) {
        this.flinkPartitionId = Objects.requireNonNull(flinkPartitionId, "flinkPartitionId");
        this.producerLocation = Objects.requireNonNull(producerLocation, "producerLocation");
        this.sluiceDescriptor = Objects.requireNonNull(sluiceDescriptor, "sluiceDescriptor");
    }

    @Override
    public ResultPartitionID getResultPartitionID() {
        return flinkPartitionId;
    }

    /** Pipelined partitions live in their producer's TaskManager: Flink releases them there when it goes away. */
    @Override
    public Optional<ResourceID> storesLocalResourcesOn() {
        return Optional.of(producerLocation);
    }

    /** @return the TaskManager that produces the partition */
    public ResourceID producerLocation() {
        return producerLocation;
    }

    /** @return Sluice's descriptor of the partition */
    public io.sluice.api.ShuffleDescriptor sluiceDescriptor() {
        return sluiceDescriptor;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SluiceShuffleDescriptor other && flinkPartitionId.equals(other.flinkPartitionId)
                && producerLocation.equals(other.producerLocation) && sluiceDescriptor.equals(other.sluiceDescriptor);
    }

    @Override
    public int hashCode() {
        return Objects.hash(flinkPartitionId, producerLocation, sluiceDescriptor);
    }

    @Override
    public String toString() {
        return "SluiceShuffleDescriptor[" + flinkPartitionId + " produced on " + producerLocation + ": "
                + sluiceDescriptor + "]";
    }
}
