package io.sluice.netty.partition;

import io.sluice.api.InsufficientBuffersException;
import io.sluice.api.ResultPartitionId;
import io.sluice.api.ShuffleException;
import io.sluice.buffers.LocalBufferPool;

/**
 * Carves a result partition's local buffer pool from the environment's memory. Implemented by the environment,
 * which knows the options that size the pool and names them when memory is short.
 *
 * <p>Any thread.
 */
@FunctionalInterface
public interface PartitionBufferPoolFactory {

    /**
     * A pool for a partition with {@code numberOfSubpartitions} subpartitions; the caller destroys it.
     *
     * @throws InsufficientBuffersException when the pool's minimum does not fit in the free memory; nothing is
     *                                      reserved then
     * @throws ShuffleException             when the environment is closed
     */
    LocalBufferPool createPartitionPool(ResultPartitionId partitionId, int numberOfSubpartitions)
            throws ShuffleException;
}
