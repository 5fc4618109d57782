package io.sluice.flink;

import io.sluice.api.PartitionType;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;

/**
 * Which Sluice partition type carries each Flink result partition type. Stateless; any thread.
 *
 * <ul>
 *   <li>{@code PIPELINED}, {@code PIPELINED_BOUNDED} (streaming exchanges, and batch jobs with
 *       {@code execution.batch-shuffle-mode: ALL_EXCHANGES_PIPELINED}): {@link PartitionType#PIPELINED_BOUNDED}.</li>
 *   <li>{@code BLOCKING} (batch exchanges, the default {@code ALL_EXCHANGES_BLOCKING}) and
 *       {@code BLOCKING_PERSISTENT} (cached intermediate results that outlive the job as cluster partitions):
 *       {@link PartitionType#BLOCKING}, Sluice's sort-merge files, kept until Flink releases them
 *       ({@code releasePartitionsLocally} on the producer's TaskManager).</li>
 *   <li>{@code HYBRID_FULL}, {@code HYBRID_SELECTIVE}: refused with {@link UnsupportedPartitionTypeException}, naming
 *       the type: Sluice has no partition that is read while being spilled. So is {@code PIPELINED_APPROXIMATE}
 *       (approximate local recovery), whose reconnecting consumers Sluice does not have.</li>
 * </ul>
 */
final class PartitionTypes {

    private PartitionTypes() {
    }

    /**
     * @param type        Flink's type of the partition
     * @param partitionId the partition, for the message
     * @param resultId    its intermediate result, for the message
     * @return the Sluice type that carries it
     * @throws UnsupportedPartitionTypeException for a type Sluice cannot carry
     */
    static PartitionType toSluice(ResultPartitionType type, Object partitionId, Object resultId) {
        switch (type) {
            case PIPELINED:
            case PIPELINED_BOUNDED:
                return PartitionType.PIPELINED_BOUNDED;
            case BLOCKING:
            case BLOCKING_PERSISTENT:
                return PartitionType.BLOCKING;
            default:
                throw UnsupportedFeatures.partitionTypeRefusal(type, partitionId, resultId);
        }
    }

    /** Whether partitions of {@code type} are written completely before they are read (nothing to acknowledge). */
    static boolean isBlocking(ResultPartitionType type) {
        return type == ResultPartitionType.BLOCKING || type == ResultPartitionType.BLOCKING_PERSISTENT;
    }
}
