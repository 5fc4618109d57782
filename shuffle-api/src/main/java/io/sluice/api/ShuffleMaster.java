package io.sluice.api;

import java.util.concurrent.CompletableFuture;

/**
 * Coordinator side of a shuffle implementation: turns partitions the engine schedules into
 * {@link ShuffleDescriptor}s that consumers can read. Safe to call from any thread.
 */
public interface ShuffleMaster extends AutoCloseable {

    /**
     * @param partition the partition to register
     * @param producer where its producer runs
     * @return completes with the descriptor consumers use to read the partition
     */
    CompletableFuture<ShuffleDescriptor> registerPartitionWithProducer(
            PartitionDescriptor partition, ProducerDescriptor producer);

    /**
     * Forgets a partition at the coordinator (resources held by the producer's environment are
     * released there with {@link ShuffleEnvironment#releasePartitionsLocally}).
     *
     * @param descriptor a descriptor this master returned
     */
    void releasePartitionExternally(ShuffleDescriptor descriptor);

    /** Releases what the master holds; idempotent. */
    @Override
    void close();
}
