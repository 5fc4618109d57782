package io.sluice.api;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * Tells a consumer's environment to create one {@link InputGate}: channel {@code i} of the gate reads the
 * subpartitions {@code consumedSubpartitionIndex..lastConsumedSubpartitionIndex} of {@code inputChannels.get(i)}, in
 * index order, each to its end before the next (one subpartition when both are equal). A range of more than one
 * subpartition is served by {@link PartitionType#BLOCKING} partitions only; a pipelined partition refuses it.
 * Immutable value (the list is copied); any thread.
 *
 * @param consumedSubpartitionIndex the first subpartition of every input partition to read, at least 0
 * @param lastConsumedSubpartitionIndex the last subpartition to read, at least {@code consumedSubpartitionIndex}
 * @param inputChannels one descriptor per channel, in channel order; not null, no null element
 * @serial exclude (the serial form is the components above; they are not repeated on the serialized-form page)
 */
public record InputGateDeploymentDescriptor(int consumedSubpartitionIndex, int lastConsumedSubpartitionIndex,
                                            List<ShuffleDescriptor> inputChannels) implements Serializable {

    /**
     * @param consumedSubpartitionIndex the first subpartition of every input partition to read, at least 0
     * @param lastConsumedSubpartitionIndex the last subpartition to read, at least {@code consumedSubpartitionIndex}
     * @param inputChannels one descriptor per channel, in channel order; copied
     * @throws IllegalArgumentException for a negative subpartition index, or a last index below the first
     */
    public InputGateDeploymentDescriptor {
        if (consumedSubpartitionIndex < 0) {
            throw new IllegalArgumentException(
                    "consumedSubpartitionIndex must be >= 0, got " + consumedSubpartitionIndex);
        }
        if (lastConsumedSubpartitionIndex < consumedSubpartitionIndex) {
            throw new IllegalArgumentException("lastConsumedSubpartitionIndex must be >= consumedSubpartitionIndex "
                    + consumedSubpartitionIndex + ", got " + lastConsumedSubpartitionIndex);
        }
        inputChannels = List.copyOf(Objects.requireNonNull(inputChannels, "inputChannels"));
    }

    /**
     * Every channel reads the one subpartition {@code consumedSubpartitionIndex}.
     *
     * @param consumedSubpartitionIndex which subpartition of every input partition to read, at least 0
     * @param inputChannels one descriptor per channel, in channel order; copied
     * @throws IllegalArgumentException for a negative subpartition index
     */
    public InputGateDeploymentDescriptor(int consumedSubpartitionIndex, List<ShuffleDescriptor> inputChannels) {
        this(consumedSubpartitionIndex, consumedSubpartitionIndex, inputChannels);
    }
}
