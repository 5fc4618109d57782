package io.sluice.flink;

import io.sluice.flink.testing.CollectingSink;
import io.sluice.flink.testing.FailOnceAfterCheckpoint;
import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import io.sluice.flink.testing.RecordingShuffleServiceFactory;
import io.sluice.testing.Await;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.checkpoint.RestoredCheckpointStats;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Exactly-once with unaligned checkpoints on Sluice: a keyed job whose sink is slower than its sources (so the
 * keyed exchange is full of data in flight whenever a checkpoint is taken), unaligned checkpoints every 100 ms, a
 * task failure and then the loss of a TaskManager. Each restore replays the data in flight its checkpoint
 * persisted; the final per-key state must equal the failure-free result (a lost or doubled record shows as a wrong
 * count), and the checkpoint the task failure restored from must have persisted data in flight.
 */
// A MiniCluster job with two restores takes tens of seconds on a loaded 2-core machine.
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SluiceUnalignedCheckpointJobTest {

    /**
     * Records: 75,000 per source subtask, more than the buffers between a source and the sinks hold (about a MiB, some
     * 30,000 records), so the sources stay backpressured (and keep running, which the injected failure needs) until
     * the end.
     */
    private static final long RECORDS = 300_000;
    private static final long KEYS = 97;
    /** The sink's pause per update: 75,000 updates per sink subtask take about 8 s, so the job outlives both faults. */
    private static final long SINK_PAUSE_NANOS = 100_000;

    /**
     * @param alignedTimeoutMillis Flink's {@code execution.checkpointing.aligned-checkpoint-timeout}: 0 starts every
     *                             checkpoint unaligned; 20 ms starts them aligned, and under this backpressure they
     *                             time out into unaligned ones (barriers queued at the producers are overtaken)
     */
    @ParameterizedTest(name = "aligned-checkpoint-timeout {0} ms")
    @ValueSource(longs = {0, 20})
    void backpressuredKeyedJob_unalignedCheckpoints_taskFailureThenTaskManagerLoss_stateEqualsTheFailureFreeRun(
            long alignedTimeoutMillis) throws Exception {
        try (MiniCluster cluster = FlinkClusters.start(Shuffle.SLUICE)) {
            FailOnceAfterCheckpoint.reset();
            Configuration job = FlinkClusters.checkpointedJobWithRestarts();
            job.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
            job.set(CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT, Duration.ofMillis(alignedTimeoutMillis));
            StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, job, FlinkClusters.PARALLELISM,
                    List.of(), List.of());
            KeyedAggregationJob.build(env, RECORDS, KEYS, FailOnceAfterCheckpoint.failing(1000))
                    .sinkTo(CollectingSink.slow("unaligned", SINK_PAUSE_NANOS));
            JobClient client = env.executeAsync("unaligned checkpoints");

            Await.until(() -> FailOnceAfterCheckpoint.failed() && FailOnceAfterCheckpoint.valuesInLaterAttempts() > 0,
                    Duration.ofSeconds(120), () -> "the task failure and the restored tasks running");
            int checkpointsAtRestore = FailOnceAfterCheckpoint.completedCheckpoints();
            // Each checkpoint is counted once per subtask of the failing function.
            int twoMore = checkpointsAtRestore + 2 * FlinkClusters.PARALLELISM;
            Await.until(() -> FailOnceAfterCheckpoint.completedCheckpoints() > twoMore, Duration.ofSeconds(120),
                    () -> "checkpoints completed after the restore");
            long restoredFrom = restoredCheckpointWithDataInFlight(cluster, client);
            assertEquals(JobStatus.RUNNING, client.getJobStatus().get(60, TimeUnit.SECONDS),
                    "the job still runs when its TaskManager goes (a faster machine needs more records)");
            cluster.terminateTaskManager(1).get(60, TimeUnit.SECONDS);
            cluster.startTaskManager();
            client.getJobExecutionResult().get(240, TimeUnit.SECONDS);

            assertEquals(KeyedAggregationJob.expected(RECORDS, KEYS),
                    KeyedAggregationJob.finalAggregates(CollectingSink.results("unaligned")),
                    "per-key state after restoring from unaligned checkpoint " + restoredFrom
                            + " and again after losing a TaskManager");
            List<SluiceShuffleEnvironment> environments = RecordingShuffleServiceFactory.environments();
            SluiceMemory.assertAllSegmentsReturned(environments.get(0));
            SluiceMemory.assertAllSegmentsReturned(environments.get(environments.size() - 1));
        }
    }

    /**
     * The checkpoint the running job last restored from, which must be an unaligned one that persisted data in flight
     * (else the restore would prove nothing about replaying it).
     *
     * @return its id
     */
    private static long restoredCheckpointWithDataInFlight(MiniCluster cluster, JobClient client) throws Exception {
        CheckpointStatsSnapshot stats = cluster.getExecutionGraph(client.getJobID()).get(60, TimeUnit.SECONDS)
                .getCheckpointStatsSnapshot();
        RestoredCheckpointStats restored = stats.getLatestRestoredCheckpoint();
        assertNotNull(restored, "the job restored from a checkpoint");
        long persisted = -1;
        for (AbstractCheckpointStats checkpoint : stats.getHistory().getCheckpoints()) {
            if (checkpoint instanceof CompletedCheckpointStats && checkpoint.getCheckpointId()
                    == restored.getCheckpointId()) {
                persisted = checkpoint.getPersistedData();
            }
        }
        assertTrue(persisted > 0, "checkpoint " + restored.getCheckpointId() + " persisted " + persisted
                + " bytes in flight (-1: not in the history)");
        return restored.getCheckpointId();
    }
}
