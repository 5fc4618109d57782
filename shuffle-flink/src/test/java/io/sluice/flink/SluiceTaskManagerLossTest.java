package io.sluice.flink;

import io.sluice.flink.testing.CollectingSink;
import io.sluice.flink.testing.FailOnceAfterCheckpoint;
import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import io.sluice.flink.testing.RecordingShuffleServiceFactory;
import io.sluice.testing.Await;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A TaskManager that goes away while a Sluice-shuffled job runs. */
// A MiniCluster job takes tens of seconds on a loaded 2-core machine: a longer hang guard than the default.
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SluiceTaskManagerLossTest {

    private static final long RECORDS = 100_000;
    private static final long KEYS = 97;

    @Test
    void taskManagerTerminatedMidJob_jobRestoresFromCheckpoint_resultsExact_survivorLeaksNothing() throws Exception {
        try (MiniCluster cluster = FlinkClusters.start(Shuffle.SLUICE)) {
            FailOnceAfterCheckpoint.reset();
            Configuration job = FlinkClusters.checkpointedJobWithRestarts();
            StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, job, FlinkClusters.PARALLELISM,
                    List.of(), List.of());
            KeyedAggregationJob.build(env, RECORDS, KEYS, FailOnceAfterCheckpoint.pacing(10))
                    .sinkTo(CollectingSink.named("tm-loss"));
            JobClient client = env.executeAsync("task manager loss");

            Await.until(() -> FailOnceAfterCheckpoint.completedCheckpoints() >= 2, Duration.ofSeconds(60),
                    () -> "two checkpoints completed before the loss; completed: "
                            + FailOnceAfterCheckpoint.completedCheckpoints());
            cluster.terminateTaskManager(1).get(60, TimeUnit.SECONDS);
            cluster.startTaskManager();
            client.getJobExecutionResult().get(120, TimeUnit.SECONDS);

            assertEquals(KeyedAggregationJob.expected(RECORDS, KEYS),
                    KeyedAggregationJob.finalAggregates(CollectingSink.results("tm-loss")),
                    "per-key state after restoring without the lost TaskManager");
            List<SluiceShuffleEnvironment> environments = RecordingShuffleServiceFactory.environments();
            assertEquals(3, environments.size(), "two TaskManagers, then a replacement");
            SluiceMemory.assertAllSegmentsReturned(environments.get(0));
            SluiceMemory.assertAllSegmentsReturned(environments.get(2));
        }
    }
}
