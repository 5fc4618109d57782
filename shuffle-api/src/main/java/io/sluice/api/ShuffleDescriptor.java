package io.sluice.api;

import java.io.Serializable;

/**
 * Everything a consumer needs to read one partition, as produced by
 * {@link ShuffleMaster#registerPartitionWithProducer}. Its content is specific to the shuffle
 * implementation; the engine only ships it (it is serializable) and hands it to
 * {@link ShuffleEnvironment}s. Implementations are immutable values with value equality.
 */
public interface ShuffleDescriptor extends Serializable {

    /** @return the partition this descriptor reads */
    ResultPartitionId partitionId();
}
