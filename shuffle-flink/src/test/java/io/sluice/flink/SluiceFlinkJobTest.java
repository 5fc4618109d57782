package io.sluice.flink;

import io.sluice.flink.testing.CollectingSink;
import io.sluice.flink.testing.FailOnceAfterCheckpoint;
import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import io.sluice.flink.testing.MixedEdgesJob;
import io.sluice.flink.testing.RecordingShuffleServiceFactory;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.executiongraph.IOMetrics;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Unmodified Flink streaming jobs on a MiniCluster of 2 TaskManagers x 2 slots with Sluice as their shuffle (one
 * cluster for the class; each job must leave every Sluice segment back in its pool).
 */
// A MiniCluster job takes tens of seconds on a loaded 2-core machine: a longer hang guard than the default.
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SluiceFlinkJobTest {

    private static final long RECORDS = 100_000;
    private static final long KEYS = 97;

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
    void keyedJob_producesExactlyWhatFlinksOwnShuffleProduces_andTheSameTaskIoMetrics() throws Exception {
        List<long[]> flinkMetrics;
        try (MiniCluster flink = FlinkClusters.start(Shuffle.FLINK)) {
            flinkMetrics = ioMetrics(flink, runKeyedJob(flink, "keyed-flink"));
        }
        List<long[]> sluiceMetrics = ioMetrics(sluice, runKeyedJob(sluice, "keyed-sluice"));
        Map<Long, List<Long>> onFlink = KeyedAggregationJob.finalAggregates(CollectingSink.results("keyed-flink"));
        Map<Long, List<Long>> onSluice = KeyedAggregationJob.finalAggregates(CollectingSink.results("keyed-sluice"));

        assertEquals(KeyedAggregationJob.expected(RECORDS, KEYS), onFlink, "Flink's shuffle (the reference)");
        assertEquals(onFlink, onSluice, "Sluice's final per-key aggregates");
        assertEquals(RECORDS, CollectingSink.results("keyed-sluice").size(), "one update per record");
        // Vertex 0 (source chain) sends, vertex 1 (keyed sum and sink) receives: the same bytes on both shuffles.
        assertTrue(flinkMetrics.get(0)[0] > RECORDS, "Flink counted bytes out: " + flinkMetrics.get(0)[0]);
        assertEquals(flinkMetrics.get(0)[0], sluiceMetrics.get(0)[0], "numBytesOut of the producing tasks");
        // Bytes in also count the end-of-stream events, one of which Flink sizes a few bytes differently: equal up
        // to 8 bytes per channel (4 consumers x 4 channels); the records' bytes are the same.
        long bytesInDifference = Math.abs(flinkMetrics.get(1)[1] - sluiceMetrics.get(1)[1]);
        assertTrue(sluiceMetrics.get(1)[1] > RECORDS && bytesInDifference <= 16 * 8, "numBytesIn of the consuming "
                + "tasks: Flink " + flinkMetrics.get(1)[1] + ", Sluice " + sluiceMetrics.get(1)[1]);
        SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
    }

    @Test
    void forwardRebalanceBroadcastUnion_eventTimeWindows_slowSink_finishWithExactResults() throws Exception {
        long values = 20_000;
        StreamExecutionEnvironment env = new TestStreamEnvironment(sluice, FlinkClusters.PARALLELISM);
        MixedEdgesJob.build(env, values, "windows", "slow", 50_000);

        env.execute("mixed edges");

        assertEquals(MixedEdgesJob.expectedWindows(values, FlinkClusters.PARALLELISM),
                MixedEdgesJob.windows(CollectingSink.results("windows")));
        assertEquals(values + MixedEdgesJob.BROADCAST_VALUES * FlinkClusters.PARALLELISM,
                CollectingSink.results("slow").size(), "every element reaches the slow sink");
        SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
    }

    @Test
    void exactlyOnce_aTaskFailsOnce_restoredKeyedStateEqualsAFailureFreeRun() throws Exception {
        FailOnceAfterCheckpoint.reset();
        Configuration job = new Configuration();
        job.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        StreamExecutionEnvironment env = new TestStreamEnvironment(sluice, job, FlinkClusters.PARALLELISM,
                List.of(), List.of());
        KeyedAggregationJob.build(env, RECORDS, KEYS, FailOnceAfterCheckpoint.failing(20))
                .sinkTo(CollectingSink.named("exactly-once"));

        env.execute("exactly once");

        assertTrue(FailOnceAfterCheckpoint.failed(), "the injected failure happened");
        // The restarted attempt's sources replay from the restored checkpoint: values pass the map again. Whether
        // the sink also shows duplicates depends on whether the failed attempt's last updates reached it before the
        // failure (a race with the latest checkpoint; seen once under load with exactly 100,000 updates), so only
        // "at least once" is asserted there; the per-key state below is what exactly-once means.
        assertTrue(FailOnceAfterCheckpoint.valuesInLaterAttempts() > 0, "the job ran on in a restarted attempt");
        List<Tuple3<Long, Long, Long>> updates = CollectingSink.results("exactly-once");
        assertTrue(updates.size() >= RECORDS, "every record's update reached the sink: " + updates.size()
                + " updates for " + RECORDS + " records");
        assertEquals(KeyedAggregationJob.expected(RECORDS, KEYS), KeyedAggregationJob.finalAggregates(updates),
                "per-key state after the restore: neither lost nor counted twice");
        SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
    }

    @Test
    void unalignedCheckpoints_keyedJobRunsToItsEnd_withExactPerKeyResults_andAllMemoryBack() throws Exception {
        Configuration job = new Configuration();
        job.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        job.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        StreamExecutionEnvironment env = new TestStreamEnvironment(sluice, job, FlinkClusters.PARALLELISM,
                List.of(), List.of());
        KeyedAggregationJob.build(env, RECORDS, KEYS, new KeyedAggregationJob.Identity())
                .sinkTo(CollectingSink.named("unaligned"));

        env.execute("unaligned");

        assertEquals(KeyedAggregationJob.expected(RECORDS, KEYS),
                KeyedAggregationJob.finalAggregates(CollectingSink.results("unaligned")), "per-key count and sum");
        SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
    }

    private static JobID runKeyedJob(MiniCluster cluster, String name) throws Exception {
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, FlinkClusters.PARALLELISM);
        KeyedAggregationJob.build(env, RECORDS, KEYS, new KeyedAggregationJob.Identity())
                .sinkTo(CollectingSink.named(name));
        return env.execute(name).getJobID();
    }

    /** Per job vertex, in topological order: {numBytesOut, numBytesIn} summed over its subtasks. */
    private static List<long[]> ioMetrics(MiniCluster cluster, JobID job) throws Exception {
        List<long[]> metrics = new ArrayList<>();
        for (AccessExecutionJobVertex vertex : cluster.getArchivedExecutionGraph(job).get()
                .getVerticesTopologically()) {
            long[] sums = new long[2];
            for (AccessExecutionVertex subtask : vertex.getTaskVertices()) {
                IOMetrics io = subtask.getCurrentExecutionAttempt().getIOMetrics();
                sums[0] += io.getNumBytesOut();
                sums[1] += io.getNumBytesIn();
            }
            metrics.add(sums);
        }
        return metrics;
    }
}
