package io.sluice.flink;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The messages for the Flink features a Sluice shuffle refuses, each naming the option to turn off and saying why
 * (docs/flink.md has the long form), and the exceptions that refuse them. Stateless; any thread.
 */
final class UnsupportedFeatures {

    private static final Logger LOG = LoggerFactory.getLogger(UnsupportedFeatures.class);

    private UnsupportedFeatures() {
    }

    /**
     * Logs a refusal at ERROR, where it happens (the JobManager for the shuffle master's, a TaskManager for a
     * task's), and returns the exception that fails the job without a restart.
     *
     * @param message what was asked, why Sluice refuses it, and what to change
     */
    static UnsupportedFeatureException refusal(String message) {
        LOG.error("Refused, the job fails: {}", message);
        return new UnsupportedFeatureException(message);
    }

    /** {@link #refusal} of a partition type Sluice does not carry (the hybrid ones). */
    static UnsupportedPartitionTypeException partitionTypeRefusal(Object type, Object partitionId, Object resultId) {
        String message = partitionType(type, partitionId, resultId);
        LOG.error("Refused, the job fails: {}", message);
        return new UnsupportedPartitionTypeException(message);
    }

    /** Checkpoints taken while recovered in-flight data is still being consumed (Flink 2.3, experimental). */
    static String checkpointingDuringRecovery() {
        return "Sluice's Flink shuffle (shuffle-service-factory.class: " + SluiceShuffleServiceFactory.class.getName()
                + ") takes checkpoints only after a task consumed the in-flight data it recovered: set "
                + FlinkConfigTranslator.CHECKPOINTING_DURING_RECOVERY.key() + ": false (the default) for this job "
                + "(see docs/flink.md).";
    }

    /** A shuffle compression codec Flink has and Sluice has not. */
    static String compressionCodec(Object codec) {
        return "Sluice's Flink shuffle (shuffle-service-factory.class: " + SluiceShuffleServiceFactory.class.getName()
                + ") has no " + codec + " compression codec: set "
                + NettyShuffleEnvironmentOptions.SHUFFLE_COMPRESSION_CODEC.key() + ": LZ4 (Flink's default, Sluice's "
                + "shuffle.compression.codec: lz4) or NONE (see docs/flink.md).";
    }

    /** A partition type Sluice does not carry (the hybrid ones). */
    private static String partitionType(Object type, Object partitionId, Object resultId) {
        return "Sluice's Flink shuffle supports pipelined and blocking partitions only (PIPELINED, PIPELINED_BOUNDED, "
                + "BLOCKING, BLOCKING_PERSISTENT); partition " + partitionId + " of intermediate result " + resultId
                + " is " + type + ". Set execution.batch-shuffle-mode: ALL_EXCHANGES_BLOCKING (or "
                + "ALL_EXCHANGES_PIPELINED) for this batch job, or run it on Flink's default shuffle (remove "
                + "shuffle-service-factory.class) for hybrid exchanges.";
    }
}
