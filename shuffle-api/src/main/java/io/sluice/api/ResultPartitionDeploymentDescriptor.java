package io.sluice.api;

import java.io.Serializable;
import java.util.Objects;

/**
 * Tells a producer's environment to create one {@link ResultPartitionWriter}.
 * Immutable value; any thread.
 *
 * @param shuffleDescriptor the registered partition; not null
 * @param type how its data is kept; not null
 * @param numberOfSubpartitions one per consumer, at least 1
 * @serial exclude (the serial form is the components above; they are not repeated on the serialized-form page)
 */
public record ResultPartitionDeploymentDescriptor(ShuffleDescriptor shuffleDescriptor,
                                                  PartitionType type,
                                                  int numberOfSubpartitions) implements Serializable {

    /**
     * @param shuffleDescriptor the registered partition
     * @param type how its data is kept
     * @param numberOfSubpartitions one per consumer
     * @throws IllegalArgumentException for fewer than 1 subpartition
     */
    public ResultPartitionDeploymentDescriptor {
        Objects.requireNonNull(shuffleDescriptor, "shuffleDescriptor");
        Objects.requireNonNull(type, "type");
        if (numberOfSubpartitions < 1) {
            throw new IllegalArgumentException("Partition " + shuffleDescriptor.partitionId()
                    + ": numberOfSubpartitions must be >= 1, got " + numberOfSubpartitions);
        }
    }
}
