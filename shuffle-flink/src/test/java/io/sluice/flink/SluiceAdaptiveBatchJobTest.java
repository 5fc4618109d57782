package io.sluice.flink;

import io.sluice.flink.testing.CollectingSink;
import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.RecordingShuffleServiceFactory;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Flink batch job at Flink 2's defaults (runtime mode BATCH, the adaptive batch scheduler choosing the consumers'
 * parallelism from the data volume): the consumers get fewer tasks than their inputs have subpartitions, so each of
 * their channels reads a range of subpartitions. On Sluice the job gives the same word counts as on Flink's shuffle,
 * and every segment comes back.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class SluiceAdaptiveBatchJobTest {

    private static final long RECORDS = 60_000;
    private static final int WORDS = 211;
    private static final String COUNT_VERTEX = "count-words";

    @TempDir
    Path shuffleDirectory;

    @Test
    void batchJobAtFlinksDefaults_readsSubpartitionRanges_andCountsWhatFlinksOwnShuffleCounts() throws Exception {
        Map<String, Long> onFlink;
        try (MiniCluster flink = FlinkClusters.start(Shuffle.FLINK, new Configuration())) {
            onFlink = runWordCount(flink, "adaptive-flink");
        }
        Configuration sluiceOptions = new Configuration();
        sluiceOptions.setString("sluice.shuffle.tmp-dirs", shuffleDirectory.toString());
        Map<String, Long> onSluice;
        try (MiniCluster sluice = FlinkClusters.start(Shuffle.SLUICE, sluiceOptions)) {
            onSluice = runWordCount(sluice, "adaptive-sluice");
            SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
        }

        assertEquals(expectedCounts(), onFlink, "Flink's shuffle (the reference)");
        assertEquals(onFlink, onSluice, "Sluice's word counts");
    }

    /**
     * Counts the words of the generated text: a source at the cluster's slots, everything after it at the
     * parallelism the adaptive batch scheduler decides. Asserts that it decided fewer counting tasks than the
     * counting input has subpartitions (so channels read ranges).
     */
    private static Map<String, Long> runWordCount(MiniCluster cluster, String name) throws Exception {
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, ExecutionConfig.PARALLELISM_DEFAULT);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.fromSequence(0, RECORDS - 1).setParallelism(FlinkClusters.PARALLELISM)
                .map(new ToWord()).name("to-word").setParallelism(FlinkClusters.PARALLELISM)
                .keyBy(new ByWord())
                .reduce((a, b) -> Tuple2.of(a.f0, a.f1 + b.f1)).name(COUNT_VERTEX)
                .sinkTo(CollectingSink.named(name));
        JobExecutionResult result = env.execute(name);

        AccessExecutionGraph graph = cluster.getArchivedExecutionGraph(result.getJobID()).get();
        AccessExecutionJobVertex counting = null;
        for (AccessExecutionJobVertex vertex : graph.getVerticesTopologically()) {
            if (vertex.getName().contains(COUNT_VERTEX)) {
                counting = vertex;
            }
        }
        assertNotNull(counting, "the counting vertex of " + name);
        assertTrue(counting.getParallelism() < counting.getMaxParallelism(), "the scheduler decided "
                + counting.getParallelism() + " counting tasks for " + counting.getMaxParallelism()
                + " subpartitions per input partition, so each channel reads a range");

        Map<String, Long> counts = new HashMap<>();
        List<Tuple2<String, Long>> updates = CollectingSink.results(name);
        for (Tuple2<String, Long> update : updates) {
            counts.merge(update.f0, update.f1, Math::max);
        }
        assertEquals(WORDS, updates.size(), "a batch reduce emits one final count per word");
        return counts;
    }

    private static Map<String, Long> expectedCounts() {
        Map<String, Long> counts = new HashMap<>();
        for (long value = 0; value < RECORDS; value++) {
            counts.merge(word(value), 1L, Long::sum);
        }
        return counts;
    }

    private static String word(long value) {
        return "word-" + (value * 7919) % WORDS;
    }

    private static final class ToWord implements MapFunction<Long, Tuple2<String, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public Tuple2<String, Long> map(Long value) {
            return Tuple2.of(word(value), 1L);
        }
    }

    private static final class ByWord implements KeySelector<Tuple2<String, Long>, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(Tuple2<String, Long> value) {
            return value.f0;
        }
    }
}
