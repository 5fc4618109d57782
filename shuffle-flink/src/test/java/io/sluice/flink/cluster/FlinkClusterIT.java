package io.sluice.flink.cluster;

import io.sluice.flink.bundle.BundleJar;
import io.sluice.flink.cluster.job.LineFileSink;
import io.sluice.flink.cluster.job.Throttle;
import io.sluice.flink.testing.KeyedAggregationJob;
import io.sluice.testing.Await;
import org.apache.flink.api.common.BatchShuffleMode;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.BatchExecutionOptions;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sluice's bundle jar on a Flink cluster of separate processes, set up as an operator would (one jar in
 * {@code lib/}, one line in {@code config.yaml}): a JobManager and three TaskManagers of two slots each, jobs of
 * parallelism 4 submitted through Flink's REST client with their classes in a user jar. A batch job and a keyed
 * streaming job with unaligned checkpoints give the expected per-key results; a TaskManager running the streaming
 * job is killed with SIGKILL in the middle of it, and the job recovers on the remaining slots from its checkpoint
 * (with the data in flight it persisted) with exactly-once per-key state; a refused feature fails its job without a
 * restart across processes too; every surviving TaskManager has all of Sluice's memory back after each job. Runs in
 * the {@code flink-cluster} profile.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class FlinkClusterIT {

    private static final int TASK_MANAGERS = 3;
    private static final int PARALLELISM = 4;
    private static final long KEYS = 97;
    private static final Duration JOB_LIMIT = Duration.ofMinutes(5);

    /** The cluster's directory, kept after the run (its logs) until the next one: {@code target/flink-cluster}. */
    private static Path home;

    private static FlinkProcessCluster cluster;
    private static RestClusterClient<StandaloneClusterId> client;
    private static Path jobJar;

    /** Appends the tail of every process's log to a failing test's output. */
    @RegisterExtension
    static final TestWatcher LOGS_ON_FAILURE = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (cluster != null) {
                System.err.println("Logs of the cluster after " + context.getDisplayName() + " failed:"
                        + cluster.logTails(80));
            }
        }
    };

    @BeforeAll
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    static void startCluster() throws Exception {
        BundleJar.assumeBuilt();
        home = Paths.get("target", "flink-cluster").toAbsolutePath();
        deleteRecursively(home);
        Files.createDirectories(home);
        jobJar = jobJar(home.resolve("job.jar"));
        cluster = FlinkProcessCluster.start(home.resolve("flink"), BundleJar.path(), TASK_MANAGERS, Map.of());
        client = cluster.client();
    }

    @AfterAll
    static void stopCluster() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void everyTaskManager_runsSluiceFromTheBundle() throws IOException {
        for (int i = 1; i <= TASK_MANAGERS; i++) {
            String log = Files.readString(cluster.log("tm-" + i));
            assertTrue(log.contains("Sluice shuffle environment tm-" + i + " started; data port"),
                    "tm-" + i + " started Sluice's environment; its log:\n" + log);
        }
    }

    @Test
    @Order(2)
    void batchJob_givesOneFinalAggregatePerKey() throws Exception {
        long records = 200_000;
        Path out = Files.createDirectories(home.resolve("batch-out"));
        // Flink 2's batch defaults: the adaptive batch scheduler, whose consumers may read ranges of subpartitions.
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(new Configuration());
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(PARALLELISM);
        KeyedAggregationJob.build(env, records, KEYS, new KeyedAggregationJob.Identity())
                .rebalance()
                .sinkTo(new LineFileSink(out));

        JobResult result = run(env);

        assertTrue(result.isSuccess(), () -> "the batch job failed: " + failure(result));
        List<Tuple3<Long, Long, Long>> aggregates = LineFileSink.read(out);
        assertEquals(KEYS, aggregates.size(), "a batch reduce emits one final aggregate per key");
        assertEquals(KeyedAggregationJob.expected(records, KEYS), KeyedAggregationJob.finalAggregates(aggregates));
        assertEverySegmentBack();
    }

    @Test
    @Order(3)
    void streamingJobWithUnalignedCheckpoints_survivesATaskManagerKilledMidJob_withExactlyOncePerKeyState()
            throws Exception {
        long records = 400_000;
        Path out = Files.createDirectories(home.resolve("streaming-out"));
        Configuration job = new Configuration();
        job.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(500));
        job.set(CheckpointingOptions.ENABLE_UNALIGNED, true);
        job.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 20);
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(job);
        env.setParallelism(PARALLELISM);
        // About 100,000 values per source subtask, a millisecond's pause every 8: over ten seconds of work.
        KeyedAggregationJob.build(env, records, KEYS, new Throttle(8)).sinkTo(new LineFileSink(out));
        JobID id = client.submitJob(jobGraph(env)).get(JOB_LIMIT.toSeconds(), TimeUnit.SECONDS);

        Await.until(() -> completedCheckpoints(id) >= 2, JOB_LIMIT,
                () -> "two checkpoints of the streaming job; checkpoints: " + cluster.rest("/jobs/" + id + "/checkpoints"));
        String victim = taskManagerRunning(id);
        cluster.kill(victim);
        JobResult result = client.requestJobResult(id).get(JOB_LIMIT.toSeconds(), TimeUnit.SECONDS);

        assertTrue(result.isSuccess(), () -> "the streaming job failed: " + failure(result));
        JsonNode checkpoints = cluster.rest("/jobs/" + id + "/checkpoints");
        assertTrue(checkpoints.path("counts").path("restored").asLong() >= 1,
                "the job restored a checkpoint after " + victim + " was killed: " + checkpoints);
        List<Tuple3<Long, Long, Long>> updates = LineFileSink.read(out);
        assertTrue(updates.size() >= records, "every record's update reached the sink (at least once): "
                + updates.size());
        assertEquals(KeyedAggregationJob.expected(records, KEYS), KeyedAggregationJob.finalAggregates(updates),
                "per-key state after recovery: neither lost nor counted twice");
        assertEquals(TASK_MANAGERS - 1, cluster.registeredTaskManagers().size(), "the killed TaskManager is gone");
        assertEverySegmentBack();
    }

    @Test
    @Order(4)
    void aRefusedFeature_failsItsJobWithoutARestart_acrossProcesses() throws Exception {
        Configuration job = new Configuration();
        job.set(ExecutionOptions.BATCH_SHUFFLE_MODE, BatchShuffleMode.ALL_EXCHANGES_HYBRID_FULL);
        job.set(BatchExecutionOptions.ADAPTIVE_AUTO_PARALLELISM_ENABLED, false);
        job.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, Integer.MAX_VALUE);
        job.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
        StreamExecutionEnvironment env = new StreamExecutionEnvironment(job);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        env.setParallelism(PARALLELISM);
        KeyedAggregationJob.build(env, 1000, KEYS, new KeyedAggregationJob.Identity())
                .sinkTo(new LineFileSink(Files.createDirectories(home.resolve("refused-out"))));
        JobID id = client.submitJob(jobGraph(env)).get(JOB_LIMIT.toSeconds(), TimeUnit.SECONDS);

        JobResult result = client.requestJobResult(id).get(JOB_LIMIT.toSeconds(), TimeUnit.SECONDS);

        assertTrue(!result.isSuccess(), "the job fails");
        Throwable failure = failure(result);
        assertTrue(ExceptionUtils.findThrowableWithMessage(failure, "supports pipelined and blocking partitions only")
                .isPresent(), () -> "Sluice's refusal is the cause: " + ExceptionUtils.stringifyException(failure));
        for (JsonNode vertex : cluster.rest("/jobs/" + id).path("vertices")) {
            for (JsonNode subtask : cluster.rest("/jobs/" + id + "/vertices/" + vertex.path("id").asText())
                    .path("subtasks")) {
                assertEquals(0, subtask.path("attempt").asInt(), "no task redeployed: " + subtask);
            }
        }
        assertEverySegmentBack();
    }

    private static JobResult run(StreamExecutionEnvironment env) throws Exception {
        JobID id = client.submitJob(jobGraph(env)).get(JOB_LIMIT.toSeconds(), TimeUnit.SECONDS);
        return client.requestJobResult(id).get(JOB_LIMIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The job graph of what {@code env} holds, with the job's classes in the user jar Flink uploads. */
    private static JobGraph jobGraph(StreamExecutionEnvironment env) {
        JobGraph graph = env.getStreamGraph().getJobGraph(FlinkClusterIT.class.getClassLoader(), null);
        graph.addJar(new org.apache.flink.core.fs.Path(jobJar.toUri()));
        return graph;
    }

    private static Throwable failure(JobResult result) {
        return result.getSerializedThrowable()
                .map(t -> t.deserializeError(FlinkClusterIT.class.getClassLoader()))
                .orElse(null);
    }

    private static long completedCheckpoints(JobID id) {
        JsonNode checkpoints = cluster.rest("/jobs/" + id + "/checkpoints");
        return checkpoints == null ? 0 : checkpoints.path("counts").path("completed").asLong();
    }

    /** A TaskManager on which a task of the job's first vertex runs. */
    private static String taskManagerRunning(JobID id) {
        String vertex = cluster.rest("/jobs/" + id).path("vertices").get(0).path("id").asText();
        for (JsonNode taskManager : cluster.rest("/jobs/" + id + "/vertices/" + vertex + "/taskmanagers")
                .path("taskmanagers")) {
            if (taskManager.path("status").asText().equals("RUNNING")) {
                return taskManager.path("taskmanager-id").asText();
            }
        }
        throw new AssertionError("no TaskManager runs vertex " + vertex + " of job " + id);
    }

    /** Every registered TaskManager's Sluice memory is back in its pool (Flink releases it after the job). */
    private static void assertEverySegmentBack() {
        for (String taskManager : cluster.registeredTaskManagers()) {
            String metrics = "/taskmanagers/" + taskManager + "/metrics?get=" + sluiceMetric(taskManager, "Available")
                    + "," + sluiceMetric(taskManager, "Total");
            Await.until(() -> {
                JsonNode values = cluster.rest(metrics);
                return values != null && values.size() == 2
                        && values.get(0).path("value").asText().equals(values.get(1).path("value").asText());
            }, JOB_LIMIT, () -> taskManager + "'s Sluice memory: " + cluster.rest(metrics));
        }
    }

    /** The full name of the TaskManager's gauge {@code Shuffle.Sluice.<kind>MemorySegments}, as its REST API lists it. */
    private static String sluiceMetric(String taskManager, String kind) {
        String suffix = "Shuffle.Sluice." + kind + "MemorySegments";
        List<String> names = new ArrayList<>();
        Await.until(() -> {
            JsonNode all = cluster.rest("/taskmanagers/" + taskManager + "/metrics");
            names.clear();
            if (all != null) {
                all.forEach(metric -> names.add(metric.path("id").asText()));
            }
            return names.stream().anyMatch(name -> name.endsWith(suffix));
        }, JOB_LIMIT, () -> taskManager + " has no metric " + suffix + ": " + names);
        return names.stream().filter(name -> name.endsWith(suffix)).findFirst().orElseThrow();
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            List<Path> all = new ArrayList<>();
            paths.forEach(all::add);
            // Children first; a symbolic link is deleted, not what it points to.
            for (int i = all.size() - 1; i >= 0; i--) {
                Files.delete(all.get(i));
            }
        }
    }

    /** The user jar: the jobs' own classes (this package's job classes and the keyed job of the MiniCluster tests). */
    private static Path jobJar(Path jar) throws IOException {
        Path classes = Paths.get(FlinkClusterIT.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        List<Path> entries = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            files.filter(Files::isRegularFile).forEach(file -> {
                String name = classes.relativize(file).toString().replace('\\', '/');
                if (name.startsWith("io/sluice/flink/cluster/job/")
                        || name.startsWith("io/sluice/flink/testing/KeyedAggregationJob")) {
                    entries.add(file);
                }
            });
        }
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            for (Path entry : entries) {
                out.putNextEntry(new JarEntry(classes.relativize(entry).toString().replace('\\', '/')));
                Files.copy(entry, out);
                out.closeEntry();
            }
        }
        return jar;
    }
}
