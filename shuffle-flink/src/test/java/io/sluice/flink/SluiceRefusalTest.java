package io.sluice.flink;

import io.sluice.flink.testing.CollectingSink;
import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import io.sluice.flink.testing.RecordingShuffleServiceFactory;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.BatchExecutionOptions;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.throwable.ThrowableClassifier;
import org.apache.flink.runtime.throwable.ThrowableType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A feature Sluice refuses fails its job at once, even under a restart strategy of unlimited attempts: the refusal
 * is a non-recoverable failure for Flink's scheduler, so no task is redeployed, and the job's failure carries
 * Sluice's message. Covers a refusal on the JobManager (the shuffle master refusing a hybrid partition) and one in a
 * task on a TaskManager (the gate refusing Flink 2.3's checkpoints during recovery).
 */
// A MiniCluster job takes tens of seconds on a loaded 2-core machine: a longer hang guard than the default.
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SluiceRefusalTest {

    /**
     * How long a refused job may take to fail before the test calls it a hang (it restarts without end when the
     * refusal is recoverable). Not a measure of speed: the job fails in well under a second when it works.
     */
    private static final long HANG_LIMIT_SECONDS = 60;

    private static MiniCluster sluice;

    @BeforeAll
    static void startCluster() throws Exception {
        sluice = FlinkClusters.start(Shuffle.SLUICE);
    }

    @AfterAll
    static void stopCluster() throws Exception {
        sluice.close();
    }

    @Test
    void hybridPartition_refusedByTheShuffleMaster_failsTheJobWithoutARestart() throws Exception {
        Configuration job = unlimitedRestarts();
        job.set(ExecutionOptions.BATCH_SHUFFLE_MODE, BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL);
        // Consumers at the job's parallelism: the refusal comes before any consumer is deployed either way.
        job.set(BatchExecutionOptions.ADAPTIVE_AUTO_PARALLELISM_ENABLED, false);
        StreamExecutionEnvironment env = new TestStreamEnvironment(sluice, job, FlinkClusters.PARALLELISM,
                List.of(), List.of());
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        KeyedAggregationJob.build(env, 1000, 7, new KeyedAggregationJob.Identity())
                .sinkTo(CollectingSink.named("hybrid"));

        Throwable refusal = failureOf(env.executeAsync("hybrid"), "supports pipelined and blocking partitions only");

        assertTrue(refusal.getMessage().contains("is HYBRID_FULL"), refusal.getMessage());
        assertTrue(refusal.getMessage().contains("execution.batch-shuffle-mode: ALL_EXCHANGES_BLOCKING"),
                refusal.getMessage());
    }

    @Test
    void checkpointsDuringRecovery_refusedInTheTasks_failTheJobWithoutARestart() throws Exception {
        assumeTrue(Arrays.stream(CheckpointingOptions.class.getFields())
                        .anyMatch(field -> field.getName().equals("CHECKPOINTING_DURING_RECOVERY_ENABLED")),
                "checkpoints during recovery are a Flink 2.3 option");
        Configuration job = unlimitedRestarts();
        job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        job.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        job.setString("execution.checkpointing.unaligned.recover-output-on-downstream.enabled", "true");
        job.setString("execution.checkpointing.during-recovery.enabled", "true");
        StreamExecutionEnvironment env = new TestStreamEnvironment(sluice, job, FlinkClusters.PARALLELISM,
                List.of(), List.of());
        KeyedAggregationJob.build(env, 1000, 7, new KeyedAggregationJob.Identity())
                .sinkTo(CollectingSink.named("during-recovery"));

        Throwable refusal = failureOf(env.executeAsync("during-recovery"), "takes checkpoints only after");

        assertTrue(refusal.getMessage().contains("execution.checkpointing.during-recovery.enabled: false"),
                refusal.getMessage());
    }

    /** A restart strategy that would redeploy a failed job without end, quickly. */
    private static Configuration unlimitedRestarts() {
        Configuration job = new Configuration();
        job.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, Integer.MAX_VALUE);
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
        return job;
    }

    /**
     * Waits (bounded) for the job to fail, and checks that it failed for Sluice's refusal, classified as
     * non-recoverable, in its first attempt: no task of the job was ever redeployed. Cancels a job that did not
     * end, so that a failing test leaves no job restarting on the shared cluster.
     *
     * @return the refusal, found in the job's failure by {@code message}
     */
    private static Throwable failureOf(JobClient client, String message) throws Exception {
        JobID id = client.getJobID();
        JobResult result;
        try {
            result = sluice.requestJobResult(id).get(HANG_LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            AccessExecutionGraph graph = sluice.getExecutionGraph(id).get();
            client.cancel().get(HANG_LIMIT_SECONDS, TimeUnit.SECONDS);
            fail("the job did not fail within " + HANG_LIMIT_SECONDS + " s of a refusal; it is " + graph.getState()
                    + " after " + maxAttemptNumber(graph) + " redeployments (latest failure: "
                    + (graph.getFailureInfo() == null ? "none" : graph.getFailureInfo().getExceptionAsString()) + ")");
            throw e;
        }
        // isSuccess, not the status getter: Flink 2.2 and 2.3 name that differently.
        assertFalse(result.isSuccess(), "the job failed");
        Throwable failure = result.getSerializedThrowable().orElseThrow()
                .deserializeError(SluiceRefusalTest.class.getClassLoader());
        Throwable refusal = ExceptionUtils.findThrowableWithMessage(failure, message)
                .orElseThrow(() -> new AssertionError("the job failed, but not with Sluice's refusal", failure));
        assertTrue(ThrowableClassifier.findThrowableOfThrowableType(failure, ThrowableType.NonRecoverableError)
                .isPresent(), "Flink's scheduler classifies the failure as non-recoverable");
        assertEquals(0, maxAttemptNumber(sluice.getArchivedExecutionGraph(id).get()),
                "no task was redeployed after the refusal");
        SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
        return refusal;
    }

    /** The highest attempt number of any subtask: 0 when no task was ever redeployed. */
    private static int maxAttemptNumber(AccessExecutionGraph graph) {
        int max = 0;
        for (AccessExecutionJobVertex vertex : graph.getVerticesTopologically()) {
            for (AccessExecutionVertex subtask : vertex.getTaskVertices()) {
                max = Math.max(max, subtask.getCurrentExecutionAttempt().getAttemptNumber());
            }
        }
        return max;
    }
}
