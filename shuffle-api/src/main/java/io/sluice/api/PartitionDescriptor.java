package io.sluice.api;

import java.io.Serializable;
import java.util.Objects;

/**
 * What the coordinator knows about a partition when it registers it with a {@link ShuffleMaster}.
 * Immutable value; any thread.
 *
 * @param partitionId the partition's identity; not null
 * @param type how its data is kept; not null
 * @param numberOfSubpartitions one per consumer, at least 1
 * @param connectionIndex consumers of partitions with different indexes towards the same producer
 *     address use different connections; at least 0
 * @serial exclude (the serial form is the components above; they are not repeated on the serialized-form page)
 */
public record PartitionDescriptor(ResultPartitionId partitionId, PartitionType type,
                                  int numberOfSubpartitions, int connectionIndex) implements Serializable {

    /**
     * @param partitionId the partition's identity
     * @param type how its data is kept
     * @param numberOfSubpartitions one per consumer
     * @param connectionIndex which connection towards the producer address consumers use
     * @throws IllegalArgumentException for fewer than 1 subpartition or a negative connection index
     */
    public PartitionDescriptor {
        Objects.requireNonNull(partitionId, "partitionId");
        Objects.requireNonNull(type, "type");
        if (numberOfSubpartitions < 1) {
            throw new IllegalArgumentException("Partition " + partitionId
                    + ": numberOfSubpartitions must be >= 1, got " + numberOfSubpartitions);
        }
        if (connectionIndex < 0) {
            throw new IllegalArgumentException("Partition " + partitionId
                    + ": connectionIndex must be >= 0, got " + connectionIndex);
        }
    }
}
