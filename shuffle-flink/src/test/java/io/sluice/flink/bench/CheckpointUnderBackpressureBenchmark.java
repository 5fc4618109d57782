package io.sluice.flink.bench;

import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CompletedCheckpointStats;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.util.TestStreamEnvironment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Not a test: checkpoints of a backpressured job, on Flink's own shuffle and on Sluice, aligned and unaligned, with
 * buffer debloating off and on. The job is the keyed job of the Flink tests fed without end, whose per-key sums go
 * through a map that pauses after every update (so the keyed exchange is always full); checkpoints every
 * {@code interval}. After {@code seconds} of each run it reads the job's completed checkpoints from Flink's
 * checkpoint statistics and prints, per configuration, how many completed, their end-to-end duration (p50, p99,
 * max) and the data in flight they persisted (mean bytes per checkpoint; zero for aligned ones). Each shuffle and
 * debloating setting is one MiniCluster of 2 TaskManagers x 2 slots; the runs alternate between them.
 *
 * <p>Run (after {@code mvn -pl shuffle-flink -am test-compile}): {@code java -cp <test class path>
 * io.sluice.flink.bench.CheckpointUnderBackpressureBenchmark [seconds] [interval-ms] [pause-us] [debloating]},
 * where {@code debloating} is {@code off}, {@code on} or {@code both} (the default): the lines to run.
 */
public final class CheckpointUnderBackpressureBenchmark {

    private CheckpointUnderBackpressureBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        long intervalMillis = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        long pauseNanos = (args.length > 2 ? Long.parseLong(args[2]) : 100) * 1000;
        boolean[] debloating = debloating(args.length > 3 ? args[3] : "both");
        System.out.printf("%d s per run, checkpoints every %d ms, %d us pause per update, parallelism %d%n", seconds,
                intervalMillis, pauseNanos / 1000, FlinkClusters.PARALLELISM);
        System.out.println("| shuffle | debloating | checkpoints | completed | duration p50 | p99 | max | "
                + "persisted in flight, mean per checkpoint |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (boolean debloat : debloating) {
            for (Shuffle shuffle : Shuffle.values()) {
                Configuration cluster = new Configuration();
                cluster.set(TaskManagerOptions.BUFFER_DEBLOAT_ENABLED, debloat);
                cluster.set(WebOptions.CHECKPOINTS_HISTORY_SIZE, 10_000);
                try (MiniCluster miniCluster = FlinkClusters.start(shuffle, cluster)) {
                    for (boolean unaligned : new boolean[] {false, true}) {
                        List<CompletedCheckpointStats> completed = run(miniCluster, unaligned, seconds,
                                intervalMillis, pauseNanos);
                        print(shuffle, debloat, unaligned, completed);
                    }
                }
            }
        }
    }

    private static boolean[] debloating(String lines) {
        switch (lines) {
            case "off":
                return new boolean[] {false};
            case "on":
                return new boolean[] {true};
            case "both":
                return new boolean[] {false, true};
            default:
                throw new IllegalArgumentException("debloating is off, on or both, not " + lines);
        }
    }

    private static List<CompletedCheckpointStats> run(MiniCluster cluster, boolean unaligned, int seconds,
                                                      long intervalMillis, long pauseNanos) throws Exception {
        Configuration job = new Configuration();
        job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(intervalMillis));
        job.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, Duration.ofMinutes(5));
        job.set(CheckpointingOptions.ENABLE_UNALIGNED, unaligned);
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, job, FlinkClusters.PARALLELISM,
                List.of(), List.of());
        KeyedAggregationJob.build(env, Long.MAX_VALUE, 1000, new KeyedAggregationJob.Identity())
                .map(new Pause(pauseNanos)).name("slow")
                .sinkTo(new DiscardingSink<>());
        JobClient client = env.executeAsync("backpressured, " + (unaligned ? "unaligned" : "aligned"));
        TimeUnit.SECONDS.sleep(seconds); // the run's length; what is measured is read from Flink's statistics
        List<CompletedCheckpointStats> completed = new ArrayList<>();
        for (AbstractCheckpointStats checkpoint : cluster.getExecutionGraph(client.getJobID()).get()
                .getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
            if (checkpoint instanceof CompletedCheckpointStats stats) {
                completed.add(stats);
            }
        }
        client.cancel().get(60, TimeUnit.SECONDS);
        return completed;
    }

    private static void print(Shuffle shuffle, boolean debloat, boolean unaligned,
                              List<CompletedCheckpointStats> completed) {
        List<Long> durations = new ArrayList<>();
        long persisted = 0;
        for (CompletedCheckpointStats stats : completed) {
            durations.add(stats.getEndToEndDuration());
            persisted += stats.getPersistedData();
        }
        Collections.sort(durations);
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %d | %s | %s | %s | %s |%n", shuffle.name().toLowerCase(
                Locale.ROOT), debloat ? "on" : "off", unaligned ? "unaligned" : "aligned", completed.size(),
                millis(percentile(durations, 50)), millis(percentile(durations, 99)),
                millis(durations.isEmpty() ? -1 : durations.get(durations.size() - 1)),
                completed.isEmpty() ? "-" : kib(persisted / completed.size()));
    }

    private static long percentile(List<Long> sorted, int percent) {
        if (sorted.isEmpty()) {
            return -1;
        }
        int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, index));
    }

    private static String millis(long value) {
        return value < 0 ? "-" : String.format(Locale.ROOT, "%,d ms", value);
    }

    private static String kib(long bytes) {
        return String.format(Locale.ROOT, "%,.0f KiB", bytes / 1024.0);
    }

    /** Passes each update on after a pause: the job's bottleneck, downstream of the keyed exchange. */
    private static final class Pause implements MapFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>> {
        private static final long serialVersionUID = 1L;
        private final long pauseNanos;

        Pause(long pauseNanos) {
            this.pauseNanos = pauseNanos;
        }

        @Override
        public Tuple3<Long, Long, Long> map(Tuple3<Long, Long, Long> update) {
            LockSupport.parkNanos(pauseNanos);
            return update;
        }
    }
}
