package io.sluice.flink.bench;

import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Not a test: the keyed job of the Flink tests (generated sequence, keyBy, per-key running sum, discarding sink) on
 * two MiniClusters of 2 TaskManagers x 2 slots, one on Flink's own shuffle and one on Sluice, run alternately in one
 * JVM; prints records per second (records / the job's net runtime) per run and the medians side by side.
 *
 * <p>Run (after {@code mvn -pl shuffle-flink -am test-compile}): {@code java -cp <test class path>
 * io.sluice.flink.bench.FlinkShuffleBenchmark [records] [rounds] [both|flink|sluice] [streaming|batch]}; with
 * {@code flink} or {@code sluice} only that cluster runs in this JVM (alternate two JVMs for a comparison without
 * shared JIT profiles). {@code batch} runs the same job with {@code execution.runtime-mode: BATCH} and every other
 * setting at Flink 2's defaults: the adaptive batch scheduler, blocking exchanges, a sort before the keyed sum, and
 * consumers that read ranges of subpartitions.
 */
public final class FlinkShuffleBenchmark {

    private static final long KEYS = 1000;

    /** Streaming (the default) or batch; set once by {@link #main}. */
    private static RuntimeExecutionMode mode = RuntimeExecutionMode.STREAMING;

    private FlinkShuffleBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long records = args.length > 0 ? Long.parseLong(args[0]) : 5_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String only = args.length > 2 ? args[2] : "both";
        mode = args.length > 3 ? RuntimeExecutionMode.valueOf(args[3].toUpperCase(Locale.ROOT))
                : RuntimeExecutionMode.STREAMING;
        if (!only.equals("both")) {
            runOne(Shuffle.valueOf(only.toUpperCase(Locale.ROOT)), records, rounds);
            return;
        }
        Map<Shuffle, List<Double>> rates = new EnumMap<>(Shuffle.class);
        try (MiniCluster flink = FlinkClusters.start(Shuffle.FLINK);
             MiniCluster sluice = FlinkClusters.start(Shuffle.SLUICE)) {
            Map<Shuffle, MiniCluster> clusters = Map.of(Shuffle.FLINK, flink, Shuffle.SLUICE, sluice);
            for (Shuffle shuffle : Shuffle.values()) {
                run(clusters.get(shuffle), records / 10); // warm-up, not counted
                rates.put(shuffle, new ArrayList<>());
            }
            for (int round = 0; round < rounds; round++) {
                for (Shuffle shuffle : Shuffle.values()) {
                    double rate = run(clusters.get(shuffle), records);
                    rates.get(shuffle).add(rate);
                    System.out.printf("round %d %-6s %,12.0f records/s%n", round + 1, shuffle, rate);
                }
            }
        }
        double flinkMedian = median(rates.get(Shuffle.FLINK));
        double sluiceMedian = median(rates.get(Shuffle.SLUICE));
        System.out.printf("median FLINK  %,12.0f records/s%n", flinkMedian);
        System.out.printf("median SLUICE %,12.0f records/s%n", sluiceMedian);
        System.out.printf("Sluice / Flink = %.2f%n", sluiceMedian / flinkMedian);
    }

    /**
     * One shuffle in this JVM only, so that the JIT compiles Flink's record writer, gate and deserializer for that
     * shuffle's classes alone (with both clusters in one JVM those call sites see both); the caller alternates JVMs.
     */
    private static void runOne(Shuffle shuffle, long records, int rounds) throws Exception {
        List<Double> rates = new ArrayList<>();
        try (MiniCluster cluster = FlinkClusters.start(shuffle)) {
            run(cluster, records / 10); // warm-up, not counted
            for (int round = 0; round < rounds; round++) {
                double rate = run(cluster, records);
                rates.add(rate);
                System.out.printf("round %d %-6s %,12.0f records/s%n", round + 1, shuffle, rate);
            }
        }
        System.out.printf("median %-6s %,12.0f records/s%n", shuffle, median(rates));
    }

    private static double run(MiniCluster cluster, long records) throws Exception {
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, FlinkClusters.PARALLELISM);
        env.setRuntimeMode(mode);
        KeyedAggregationJob.build(env, records, KEYS, new KeyedAggregationJob.Identity()).sinkTo(new Discard());
        JobExecutionResult result = env.execute("keyed benchmark, " + mode);
        return records * 1000.0 / result.getNetRuntime();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** Drops every element. */
    private static final class Discard implements Sink<Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public SinkWriter<Tuple3<Long, Long, Long>> createWriter(WriterInitContext context) {
            return new SinkWriter<>() {
                @Override
                public void write(Tuple3<Long, Long, Long> element, Context context) {
                }

                @Override
                public void flush(boolean endOfInput) {
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
