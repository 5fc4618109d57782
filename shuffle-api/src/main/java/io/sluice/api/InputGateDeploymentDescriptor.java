package io.sluice.api;

import java.io.Serializable;
import java.util.List;
import java.util.Objects;

/**
 * Tells a consumer's environment to create one {@link InputGate}: channel {@code i} of the gate
 * reads subpartition {@code consumedSubpartitionIndex} of {@code inputChannels.get(i)}.
 * Immutable value (the list is copied); any thread.
 *
 * @param consumedSubpartitionIndex which subpartition of every input partition to read, at least 0
 * @param inputChannels one descriptor per channel, in channel order; not null, no null element
 * @serial exclude (the serial form is the components above; they are not repeated on the serialized-form page)
 */
public record InputGateDeploymentDescriptor(int consumedSubpartitionIndex,
                                            List<ShuffleDescriptor> inputChannels) implements Serializable {

    /**
     * @param consumedSubpartitionIndex which subpartition of every input partition to read, at least 0
     * @param inputChannels one descriptor per channel, in channel order; copied
     * @throws IllegalArgumentException for a negative subpartition index
     */
    public InputGateDeploymentDescriptor {
        if (consumedSubpartitionIndex < 0) {
            throw new IllegalArgumentException(
                    "consumedSubpartitionIndex must be >= 0, got " + consumedSubpartitionIndex);
        }
        inputChannels = List.copyOf(Objects.requireNonNull(inputChannels, "inputChannels"));
    }
}
