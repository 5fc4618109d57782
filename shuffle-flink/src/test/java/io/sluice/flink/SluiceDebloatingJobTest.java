package io.sluice.flink;

import io.sluice.flink.testing.CollectingSink;
import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import io.sluice.flink.testing.RecordingShuffleServiceFactory;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.metrics.MetricNames;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Flink's buffer debloating on Sluice: a keyed job whose sink is slower than its sources, on 2 TaskManagers with
 * {@code taskmanager.network.memory.buffer-debloat.enabled}. Flink's StreamTask triggers every Sluice gate on its
 * period; each gate measures how fast its consumer takes data and announces a buffer size below the segment size
 * (the sink's pause bounds that throughput, so the size must shrink), and the result is exact.
 */
// A MiniCluster job takes tens of seconds on a loaded 2-core machine: a longer hang guard than the default.
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SluiceDebloatingJobTest {

    private static final long RECORDS = 8_000;
    private static final long KEYS = 97;
    /**
     * The sink's pause per update: at most 10,000 updates (of about 30 bytes) a second per consumer, so about 3 KB
     * taken from its gate per 10 ms of debloat target, far below the 32 KB segment whatever the machine's speed.
     */
    private static final long SINK_PAUSE_NANOS = 100_000;
    private static final long SEGMENT_SIZE = TaskManagerOptions.MEMORY_SEGMENT_SIZE.defaultValue().getBytes();

    @Test
    void backpressuredKeyedJob_gatesAnnounceBuffersBelowTheSegmentSize_andTheResultIsExact() throws Exception {
        InMemoryReporter reporter = InMemoryReporter.createWithRetainedMetrics();
        Configuration cluster = new Configuration();
        cluster.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, true);
        cluster.set(TaskManagerOptions.BUFFER_DEBLOAT_PERIOD, Duration.ofMillis(10));
        cluster.set(TaskManagerOptions.BUFFER_DEBLOAT_TARGET, Duration.ofMillis(10));
        cluster.set(TaskManagerOptions.BUFFER_DEBLOAT_SAMPLES, 4);
        reporter.addToConfiguration(cluster);

        Map<String, Long> announced;
        try (MiniCluster sluice = FlinkClusters.start(Shuffle.SLUICE, cluster)) {
            StreamExecutionEnvironment env = new TestStreamEnvironment(sluice, FlinkClusters.PARALLELISM);
            KeyedAggregationJob.build(env, RECORDS, KEYS, new KeyedAggregationJob.Identity())
                    .sinkTo(CollectingSink.slow("debloated", SINK_PAUSE_NANOS));

            JobID job = env.execute("debloated").getJobID();

            announced = debloatedBufferSizes(reporter, job);
            SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
        }

        List<Tuple3<Long, Long, Long>> updates = CollectingSink.results("debloated");
        assertEquals(RECORDS, updates.size(), "one update per record");
        assertEquals(KeyedAggregationJob.expected(RECORDS, KEYS), KeyedAggregationJob.finalAggregates(updates),
                "per-key count and sum");
        assertEquals(FlinkClusters.PARALLELISM, announced.size(),
                "one gauge per consuming subtask's gate: " + announced);
        for (Map.Entry<String, Long> gate : announced.entrySet()) {
            assertTrue(gate.getValue() < SEGMENT_SIZE, "the slow sink's gate announced a size below the "
                    + SEGMENT_SIZE + "-byte segment: " + announced);
        }
    }

    /** The last size each Sluice gate of {@code job} announced, by metric identifier (a segment while none). */
    private static Map<String, Long> debloatedBufferSizes(InMemoryReporter reporter, JobID job) {
        Map<String, Long> sizes = new TreeMap<>();
        for (Map.Entry<String, Metric> metric : reporter.getMetricsByIdentifiers(job).entrySet()) {
            String identifier = metric.getKey();
            if (identifier.endsWith("." + MetricNames.DEBLOATED_BUFFER_SIZE)) {
                assertTrue(identifier.contains(".Shuffle." + SluiceShuffleEnvironment.METRIC_GROUP + ".Input."),
                        "Sluice's gate gauge, under Sluice's shuffle group: " + identifier);
                sizes.put(identifier, ((Number) ((Gauge<?>) metric.getValue()).getValue()).longValue());
            }
        }
        assertFalse(sizes.isEmpty(), "gauges " + MetricNames.DEBLOATED_BUFFER_SIZE + " of job " + job);
        return sizes;
    }
}
