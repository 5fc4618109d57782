package io.sluice.tests.blocking;

import io.sluice.api.PartitionType;
import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleDescriptor;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMaster;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleServiceLoader;
import io.sluice.api.ShuffleOptions;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.TestPkis;
import io.sluice.tests.support.Transport;
import io.sluice.api.ShuffleException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocking partitions through the public API: written to disk with a small memory budget, read after finish(),
 * any number of times, locally and remotely, and deleted on release and close.
 */
class BlockingPartitionTest {

    private static final int SUBPARTITIONS = 4;
    private static final long SEED = 11;
    /** 200 MB of mixed records in all, over 4 subpartitions. */
    private static final long TOTAL_BYTES = 200L << 20;

    @TempDir
    Path tmp;

    private ShuffleConfig config() {
        return ShuffleConfig.empty()
                .with(ShuffleOptions.MEMORY_TOTAL, 16L << 20)
                .with(ShuffleOptions.TMP_DIRS, tmp.toString())
                .with(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF, Duration.ofMillis(10))
                .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, Duration.ofSeconds(2));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sluice.tests.blocking.BlockingLink#all")
    void twoHundredMegabytes_in16mOfMemory_readTwice_everyRecordVerified_filesGoneAfterRelease(BlockingLink link)
            throws Exception {
        try (ShuffleFixture shuffle = link.start(config())) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, SUBPARTITIONS, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            long[] records = produce(writer, TOTAL_BYTES);
            writer.finish();
            writer.close(); // the data stays for its consumers

            ShuffleEnvironment producer = shuffle.producerEnvironment();
            assertAllSegmentsFree(producer, "the producer once the partition is on disk");
            assertTrue(dataFiles().size() == 2, "data and index file in " + tmp + ": " + dataFiles());

            for (int round = 0; round < 2; round++) {
                readEverySubpartition(shuffle, partition, records, "round " + round);
            }
            assertTrue(producer.partitionsOccupyingLocalResources().contains(partition.id()),
                    "a blocking partition read to its end stays until it is released");

            producer.releasePartitionsLocally(List.of(partition.id()));
            Await.until(() -> dataFiles().isEmpty(), Await.EVENTUALLY, () -> "files deleted: " + dataFiles());
        }
        assertEquals(List.of(), environmentDirectories(), "environment directories after close");
    }

    /**
     * Over TLS the file bytes cannot go to the socket as a FileRegion (the TLS handler encrypts ByteBufs only), so
     * the server must read them into buffers: every record still arrives intact.
     */
    @Test
    void overTls_readFromDiskThroughBuffers_everyRecordVerified() throws Exception {
        ShuffleConfig config = TestPkis.cluster().configure(config(), "jdk");
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, config)) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, SUBPARTITIONS, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            long[] records = produce(writer, 16L << 20);
            writer.finish();
            writer.close();
            readEverySubpartition(shuffle, partition, records, "over TLS");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sluice.tests.blocking.BlockingLink#all")
    void twoConsumersAtOnce_requestedBeforeFinish_bothReadEverything(BlockingLink link) throws Exception {
        try (ShuffleFixture shuffle = link.start(config())) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 1, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            // Both consumers ask before the producer has finished: their requests wait (retried with backoff).
            RecordReader first = shuffle.setUpReader("consumer a", 0, partition);
            RecordReader second = shuffle.setUpReader("consumer b", 0, partition);
            BackgroundTask<Long> a = shuffle.fork("consumer a",
                    () -> RecordTraffic.readToEnd(first, new RecordVerifier("consumer a", new int[] {0})));
            BackgroundTask<Long> b = shuffle.fork("consumer b",
                    () -> RecordTraffic.readToEnd(second, new RecordVerifier("consumer b", new int[] {0})));
            // Both consumers wait for data before anything is written: their requests came before finish().
            Await.blocked(a.thread());
            Await.blocked(b.thread());
            long[] records = produce(writer, 20L << 20);
            writer.finish();

            assertEquals(records[0], a.await(Await.EVENTUALLY), "records read by consumer a");
            assertEquals(records[0], b.await(Await.EVENTUALLY), "records read by consumer b");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sluice.tests.blocking.BlockingLink#all")
    void releaseDuringRead_failsTheReader_filesGoOnceItHasGone(BlockingLink link) throws Exception {
        releaseDuringRead(link, (shuffle, partition) ->
                shuffle.producerEnvironment().releasePartitionsLocally(List.of(partition.id())));
    }

    /**
     * The master's release reaches the producer's environment (a ReleasePartitions message to its data port, or
     * in-process for an environment without one): the reader there fails with the documented exception, the files
     * go once it has let go, the environment forgets the partition, and every segment is back.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sluice.tests.blocking.BlockingLink#all")
    void releasePartitionExternally_duringARead_failsTheReader_deletesTheFilesAtTheProducer(BlockingLink link)
            throws Exception {
        releaseDuringRead(link, (shuffle, partition) ->
                shuffle.master().releasePartitionExternally(partition.descriptor()));
    }

    /** How a test releases a partition. */
    private interface Release {
        void release(ShuffleFixture shuffle, RegisteredPartition partition) throws Exception;
    }

    private void releaseDuringRead(BlockingLink link, Release release) throws Exception {
        try (ShuffleFixture shuffle = link.start(config())) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 1, 0);
            long[] records = writeFinished(shuffle, partition, 20L << 20);
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            RecordTraffic.read(reader, verifier, 10); // reading has begun

            release.release(shuffle, partition);
            ShuffleEnvironment producer = shuffle.producerEnvironment();
            // A release from the master travels to the producer: the reader continues once it has arrived there.
            Await.until(() -> !producer.partitionsOccupyingLocalResources().contains(partition.id()),
                    Await.EVENTUALLY, () -> "partitions at the producer: "
                            + producer.partitionsOccupyingLocalResources());

            Throwable failure = shuffle.fork("consumer", () -> RecordTraffic.readToEnd(reader, verifier))
                    .awaitFailure(Await.EVENTUALLY);
            assertInstanceOf(ProducerFailedException.class, failure, "what the reader of a released partition got");
            assertTrue(failure.getMessage().contains(partition.id().toString()), failure.getMessage());
            assertTrue(verifier.records() < records[0], "the read ended early");
            reader.close();
            Await.until(() -> dataFiles().isEmpty(), Await.EVENTUALLY, () -> "files deleted: " + dataFiles());
            assertAllSegmentsFree(producer, "the producer after the release");
        }
    }

    /** Writes {@code bytes} of records to a new writer of {@code partition}, finishes and closes it. */
    private static long[] writeFinished(ShuffleFixture shuffle, RegisteredPartition partition, long bytes)
            throws IOException {
        ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
        writer.setup();
        long[] records = produce(writer, bytes);
        writer.finish();
        writer.close(); // the data stays for its consumers
        return records;
    }

    /** Under TLS the master authenticates like any peer: with the cluster's certificate its release is obeyed. */
    @Test
    void releasePartitionExternally_overTls_deletesTheFiles() throws Exception {
        ShuffleConfig config = TestPkis.cluster().configure(config(), "jdk");
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, config)) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 2, 0);
            writeFinished(shuffle, partition, 1L << 20);
            assertEquals(2, dataFiles().size(), "files of the finished partition: " + dataFiles());

            shuffle.master().releasePartitionExternally(partition.descriptor());

            Await.until(() -> dataFiles().isEmpty(), Await.EVENTUALLY, () -> "files deleted: " + dataFiles());
        }
    }

    /** A master whose certificate the environments do not trust cannot release their partitions. */
    @Test
    void releasePartitionExternally_fromAnUntrustedMaster_isRefused_filesStay() throws Exception {
        ShuffleConfig config = TestPkis.cluster().configure(config(), "jdk");
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, config);
             ShuffleMaster stranger = ShuffleServiceLoader.load(TestPkis.foreign().configure(config(), "jdk"))
                     .createShuffleMaster(TestPkis.foreign().configure(config(), "jdk"))) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 2, 0);
            long[] records = writeFinished(shuffle, partition, 1L << 20);

            releaseAndAwaitTheAttempt(stranger, partition);

            assertEquals(2, dataFiles().size(), "files after an untrusted master's release: " + dataFiles());
            assertTrue(shuffle.producerEnvironment().partitionsOccupyingLocalResources().contains(partition.id()),
                    "the partition is still registered at its producer");
            readEverySubpartition(shuffle, partition, records, "after the refused release");
        }
    }

    /**
     * {@code master.releasePartitionExternally(partition)}, then waits until the master's attempt to reach the producer
     * is over, refused or not, so that what the test checks afterwards is what the attempt left. The public call
     * gives no outcome; the Netty master's package-private {@code releaseAtProducer}, which it calls, returns one.
     */
    private static void releaseAndAwaitTheAttempt(ShuffleMaster master, RegisteredPartition partition)
            throws Exception {
        Method releaseAtProducer = master.getClass().getDeclaredMethod("releaseAtProducer", ShuffleDescriptor.class);
        releaseAtProducer.setAccessible(true);
        CompletableFuture<?> attempt = (CompletableFuture<?>) releaseAtProducer.invoke(master, partition.descriptor());
        attempt.handle((ignored, refusal) -> null).get(30, TimeUnit.SECONDS);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sluice.tests.blocking.BlockingLink#all")
    void environmentClose_deletesTheFilesOfAnUnreleasedPartition(BlockingLink link) throws Exception {
        try (ShuffleFixture shuffle = link.start(config())) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 2, 0);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            produce(writer, 1L << 20);
            writer.finish();
            assertEquals(2, dataFiles().size(), "files of the finished partition: " + dataFiles());
        }
        assertEquals(List.of(), environmentDirectories(), "environment directories after close");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.sluice.tests.blocking.BlockingLink#all")
    void fullDisk_failsTheWriterNamingDirectoryAndPartition_deletesItsFiles_reservesNothing(BlockingLink link)
            throws Exception {
        Path deviceFull = Path.of("/dev/full");
        Assumptions.assumeTrue(Files.isWritable(deviceFull), "needs /dev/full (Linux) to stand for a full disk");
        try (ShuffleFixture shuffle = link.start(config())) {
            RegisteredPartition partition = shuffle.registerPartition(PartitionType.BLOCKING, 2, 0);
            // The data file is a disk that is full: every write fails with ENOSPC. Every environment's directory
            // gets the link, so the producer's has it whichever it is.
            for (Path directory : environmentDirectories()) {
                Files.createSymbolicLink(directory.resolve(partition.id() + ".data"), deviceFull);
            }
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();

            ShuffleException failure = assertThrows(ShuffleException.class, () -> produce(writer, 16L << 20));
            assertTrue(environmentDirectories().stream().anyMatch(d -> failure.getMessage().contains(d.toString())),
                    failure.getMessage());
            assertTrue(failure.getMessage().contains(partition.id().toString()), failure.getMessage());
            assertTrue(failure.getMessage().contains("shuffle.tmp-dirs"), failure.getMessage());
            assertEquals(environmentDirectories().size() - 1, dataFiles().size(),
                    "files left by the failed writer (the other environment's unused link stays): " + dataFiles());
            assertAllSegmentsFree(shuffle.producerEnvironment(), "the producer after the failed write");
            assertThrows(ShuffleException.class, writer::finish, "finish after the failure");
        }
    }

    @Test
    void unwritableTmpDir_failsCreateShuffleEnvironment_namingTheDirectory() throws Exception {
        Path file = Files.writeString(tmp.resolve("not-a-directory"), "x");
        ShuffleConfig config = config().with(ShuffleOptions.TMP_DIRS, tmp + "," + file);

        IllegalArgumentException failure = assertThrows(IllegalArgumentException.class,
                () -> BlockingLink.IN_PROCESS.start(config).close());
        assertTrue(failure.getMessage().contains(file.toString()), failure.getMessage());
        assertTrue(failure.getMessage().contains("shuffle.tmp-dirs"), failure.getMessage());
        assertEquals(List.of(), environmentDirectories(), "directories left by the failed environment");
    }

    /** Emits records round-robin over the writer's subpartitions until {@code bytes}; returns per subpartition. */
    private static long[] produce(ResultPartitionWriter writer, long bytes) throws IOException {
        int subpartitions = writer.numberOfSubpartitions();
        RecordGenerator[] generators = new RecordGenerator[subpartitions];
        for (int s = 0; s < subpartitions; s++) {
            generators[s] = new RecordGenerator(s, SEED + s, RecordSizes.parse(RecordSizes.MIXED));
        }
        long[] records = new long[subpartitions];
        long written = 0;
        for (long i = 0; written < bytes; i++) {
            int s = (int) (i % subpartitions);
            written += RecordTraffic.emitNext(writer, s, generators[s]);
            records[s]++;
        }
        return records;
    }

    private static void readEverySubpartition(ShuffleFixture shuffle, RegisteredPartition partition, long[] records,
                                              String round) throws Exception {
        @SuppressWarnings("unchecked")
        BackgroundTask<RecordVerifier>[] consumers = new BackgroundTask[records.length];
        for (int s = 0; s < records.length; s++) {
            int subpartition = s;
            RecordReader reader = shuffle.setUpReader(round + " consumer " + s, s, partition);
            consumers[s] = shuffle.fork(round + " consumer " + s, () -> {
                RecordVerifier verifier = new RecordVerifier(round + " consumer " + subpartition,
                        new int[] {subpartition});
                RecordTraffic.readToEnd(reader, verifier);
                return verifier;
            });
        }
        for (int s = 0; s < records.length; s++) {
            RecordVerifier verifier = consumers[s].await(Await.EVENTUALLY);
            verifier.endOfChannel(0, records[s]);
        }
    }

    private List<Path> environmentDirectories() throws IOException {
        try (Stream<Path> dirs = Files.list(tmp)) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("sluice-shuffle-")).toList();
        }
    }

    /** The partition files under the temp directory; a file deleted while the tree is walked means: walk again. */
    private List<Path> dataFiles() {
        while (true) {
            try (Stream<Path> files = Files.walk(tmp)) {
                return files.filter(p -> p.toString().endsWith(".data") || p.toString().endsWith(".index")).toList();
            } catch (UncheckedIOException e) {
                if (!(e.getCause() instanceof NoSuchFileException)) {
                    throw new AssertionError(e);
                }
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
    }

    private static void assertAllSegmentsFree(ShuffleEnvironment environment, String when) {
        ShuffleMetrics metrics = environment.metrics();
        assertEquals(metrics.totalSegments(), metrics.availableSegments(), "available segments of " + when);
    }
}
