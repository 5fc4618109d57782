package io.sluice.netty.partition;

import io.sluice.api.ResultPartitionId;

import java.nio.ByteBuffer;

/**
 * What the {@link ResultPartitionManager} and the readers need of a partition, whatever keeps its data: a pipelined
 * {@link ResultPartition} in memory, or a blocking partition on disk.
 *
 * <p>Implementations are thread-safe: every method may be called from any thread.
 */
public interface RegisteredPartition {

    /** The partition's id. */
    ResultPartitionId partitionId();

    /**
     * Creates a reader view of one subpartition.
     *
     * @throws IllegalStateException when the partition is released, or the subpartition cannot take another reader
     * @throws io.sluice.api.ShuffleException when the partition's data cannot be read (for example its files are gone)
     */
    ResultSubpartitionView createSubpartitionView(int index, BufferAvailabilityListener listener)
            throws io.sluice.api.ShuffleException;

    /**
     * Creates one reader's view of the subpartitions {@code first..last}, read one after the other (see
     * {@link SubpartitionRangeView}). By default only a range of one subpartition: a partition whose subpartitions
     * fill at the same time (pipelined) cannot be read one subpartition after the other without stalling its
     * producer on the subpartitions not read yet.
     *
     * @throws io.sluice.api.ShuffleException when the partition cannot serve the range, or as
     *                                        {@link #createSubpartitionView}
     * @throws IllegalStateException          as {@link #createSubpartitionView}
     */
    default ResultSubpartitionView createSubpartitionRangeView(int first, int last,
                                                               BufferAvailabilityListener listener)
            throws io.sluice.api.ShuffleException {
        if (first == last) {
            return createSubpartitionView(first, listener);
        }
        throw new io.sluice.api.ShuffleException("partition " + partitionId() + " is pipelined and cannot serve the "
                + "subpartition range [" + first + ", " + last + "] to one channel: only a BLOCKING partition is "
                + "read as a range (InputGateDeploymentDescriptor.lastConsumedSubpartitionIndex); read each "
                + "subpartition of a pipelined partition through its own channel");
    }

    /** Hands a consumer's task event to the producer; false when nobody listens. */
    boolean deliverTaskEvent(ByteBuffer event);

    /**
     * Releases the partition: readers still reading fail, memory and files go back. Idempotent.
     *
     * @param cause the producer's failure, or null for a plain release
     */
    void release(Throwable cause);

    /** Whether the partition was released. */
    boolean isReleased();
}
