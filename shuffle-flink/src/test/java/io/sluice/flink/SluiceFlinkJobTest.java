package io.sluice.flink;

import io.sluice.flink.testing.CollectingSink;
import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import io.sluice.flink.testing.RecordingShuffleServiceFactory;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Unmodified Flink streaming jobs on a MiniCluster of 2 TaskManagers x 2 slots, with Sluice as their shuffle. */
class SluiceFlinkJobTest {

    private static final long RECORDS = 200_000;
    private static final long KEYS = 97;

    @Test
    void keyedJob_producesExactlyWhatFlinksOwnShuffleProduces() throws Exception {
        Map<Long, List<Long>> onFlink = runKeyedJob(Shuffle.FLINK, "keyed-flink");
        Map<Long, List<Long>> onSluice = runKeyedJob(Shuffle.SLUICE, "keyed-sluice");

        assertEquals(KeyedAggregationJob.expected(RECORDS, KEYS), onFlink, "Flink's shuffle (the reference)");
        assertEquals(onFlink, onSluice, "Sluice's final per-key aggregates");
        assertEquals(RECORDS, CollectingSink.results("keyed-sluice").size(), "one update per record");
    }

    private static Map<Long, List<Long>> runKeyedJob(Shuffle shuffle, String name) throws Exception {
        try (MiniCluster cluster = FlinkClusters.start(shuffle)) {
            StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, FlinkClusters.PARALLELISM);
            KeyedAggregationJob.build(env, RECORDS, KEYS, new KeyedAggregationJob.Identity())
                    .sinkTo(CollectingSink.named(name));
            env.execute(name);
            if (shuffle == Shuffle.SLUICE) {
                SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
            }
        }
        List<Tuple3<Long, Long, Long>> updates = CollectingSink.results(name);
        return KeyedAggregationJob.finalAggregates(updates);
    }
}
