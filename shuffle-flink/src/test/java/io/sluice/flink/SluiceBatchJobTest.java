package io.sluice.flink;

import io.sluice.flink.testing.CollectingSink;
import io.sluice.flink.testing.FlinkClusters;
import io.sluice.flink.testing.FlinkClusters.Shuffle;
import io.sluice.flink.testing.KeyedAggregationJob;
import io.sluice.flink.testing.RecordingShuffleServiceFactory;
import io.sluice.testing.Await;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.BatchExecutionOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Flink batch job (runtime mode BATCH: every exchange a BLOCKING partition) on 2 TaskManagers x 2 slots, on Flink's
 * own shuffle and on Sluice, whose blocking partitions are sort-merge files: the same results, and once the job is
 * over Flink has released every partition, so no partition file is left and every segment is back.
 */
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class SluiceBatchJobTest {

    private static final long RECORDS = 100_000;
    private static final long KEYS = 97;
    private static final Duration FILES_GONE_LIMIT = Duration.ofSeconds(30);

    @TempDir
    Path shuffleDirectory;

    @Test
    void batchJob_overBlockingPartitions_producesWhatFlinksOwnShuffleProduces_andLeavesNoPartitionFile()
            throws Exception {
        // Consumers at the job's parallelism, one subpartition per channel (docs/flink.md), on both shuffles.
        Configuration batch = new Configuration();
        batch.set(BatchExecutionOptions.ADAPTIVE_AUTO_PARALLELISM_ENABLED, false);
        batch.set(CoreOptions.DEFAULT_PARALLELISM, FlinkClusters.PARALLELISM);
        List<Tuple3<Long, Long, Long>> onFlink;
        try (MiniCluster flink = FlinkClusters.start(Shuffle.FLINK, batch)) {
            onFlink = runBatchJob(flink, "batch-flink");
        }
        Configuration sluiceOptions = new Configuration(batch);
        sluiceOptions.setString("sluice.shuffle.tmp-dirs", shuffleDirectory.toString());
        List<Tuple3<Long, Long, Long>> onSluice;
        int partitionFilesCreated;
        try (MiniCluster sluice = FlinkClusters.start(Shuffle.SLUICE, sluiceOptions)) {
            FileWatch watch = new FileWatch(shuffleDirectory);
            try {
                onSluice = runBatchJob(sluice, "batch-sluice");
            } finally {
                partitionFilesCreated = watch.stop();
            }
            assertTrue(partitionFilesCreated > 0, "the blocking exchanges went through Sluice's partition files");
            assertNoPartitionFileWithin(shuffleDirectory);
            SluiceMemory.assertAllSegmentsReturned(RecordingShuffleServiceFactory.environments());
        }

        assertEquals(KEYS, onFlink.size(), "a batch reduce emits one final aggregate per key");
        assertEquals(KeyedAggregationJob.expected(RECORDS, KEYS), KeyedAggregationJob.finalAggregates(onFlink),
                "Flink's shuffle (the reference)");
        assertEquals(onFlink, onSluice, "Sluice's results, element for element");
    }

    /** The keyed job in batch mode, with an extra rebalance exchange; its sorted output. */
    private static List<Tuple3<Long, Long, Long>> runBatchJob(MiniCluster cluster, String name) throws Exception {
        StreamExecutionEnvironment env = new TestStreamEnvironment(cluster, FlinkClusters.PARALLELISM);
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        KeyedAggregationJob.build(env, RECORDS, KEYS, new KeyedAggregationJob.Identity())
                .setParallelism(FlinkClusters.PARALLELISM)
                .rebalance()
                .sinkTo(CollectingSink.named(name)).setParallelism(FlinkClusters.PARALLELISM);
        env.execute(name);
        List<Tuple3<Long, Long, Long>> results = new ArrayList<>(CollectingSink.results(name));
        results.sort(Comparator.comparing((Tuple3<Long, Long, Long> t) -> t.f0));
        return results;
    }

    /** Flink releases a job's partitions asynchronously after it ends: waits a bounded time for the files to go. */
    private static void assertNoPartitionFileWithin(Path directory) {
        Await.until(() -> partitionFilesOrRetry(directory).isEmpty(), FILES_GONE_LIMIT,
                () -> "partition files left after the job: " + partitionFilesOrRetry(directory));
    }

    /** The partition files now; a walk that raced a deletion counts as "not gone yet" (the directory itself). */
    private static List<Path> partitionFilesOrRetry(Path directory) {
        try {
            return partitionFiles(directory);
        } catch (IOException | UncheckedIOException e) {
            return List.of(directory);
        }
    }

    /**
     * Counts the partition files created under a directory while a job runs, from the file system's creation events
     * (a {@link WatchService} on every directory there and on those created later), so a file that lives only
     * between two looks is counted too.
     */
    private static final class FileWatch {

        private final AtomicInteger created = new AtomicInteger();
        private final WatchService events;
        private final Thread thread;

        FileWatch(Path directory) throws IOException {
            events = directory.getFileSystem().newWatchService();
            try (Stream<Path> all = Files.walk(directory)) {
                for (Path dir : (Iterable<Path>) all.filter(Files::isDirectory)::iterator) {
                    dir.register(events, StandardWatchEventKinds.ENTRY_CREATE);
                }
            }
            thread = new Thread(this::countCreations, "partition-file-watch");
            thread.setDaemon(true);
            thread.start();
        }

        private void countCreations() {
            try {
                while (true) {
                    WatchKey key = events.take();
                    for (WatchEvent<?> event : key.pollEvents()) {
                        if (event.kind() != StandardWatchEventKinds.ENTRY_CREATE) {
                            continue; // OVERFLOW: events lost, but files were created, and later ones still count
                        }
                        Path path = ((Path) key.watchable()).resolve((Path) event.context());
                        if (isPartitionFile(path)) {
                            created.incrementAndGet();
                        } else if (Files.isDirectory(path)) {
                            path.register(events, StandardWatchEventKinds.ENTRY_CREATE);
                        }
                    }
                    key.reset();
                }
            } catch (InterruptedException | ClosedWatchServiceException e) {
                // stopped
            } catch (IOException e) {
                throw new UncheckedIOException("cannot watch a new directory", e);
            }
        }

        /** @return partition files created since the watch started */
        int stop() throws InterruptedException, IOException {
            events.close(); // ends the take() of the watching thread
            thread.join();
            return created.get();
        }
    }

    private static boolean isPartitionFile(Path path) {
        return path.toString().endsWith(".data") || path.toString().endsWith(".index");
    }

    private static List<Path> partitionFiles(Path directory) throws IOException {
        try (Stream<Path> all = Files.walk(directory)) {
            return all.filter(SluiceBatchJobTest::isPartitionFile).toList();
        }
    }
}
