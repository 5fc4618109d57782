package io.sluice.tests;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleException;
import io.sluice.api.ShuffleMetrics;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryLayout;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When a finished partition lets go of its memory: once every consumer has read it to its end, or at once when the
 * environment is told to release it.
 */
class PartitionReleaseTest {

    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, MemoryConfig.SMALL_SEGMENT);
    private static final int SUBPARTITIONS = 2;
    /** Per subpartition; fits in the partition's buffers, so the producer finishes before anyone reads. */
    private static final int RECORDS = 20;
    private static final long SEED = 29;

    @EveryLayout
    void finishedPartition_readToItsEndByEveryConsumer_isReleasedWithItsMemory(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(SUBPARTITIONS);
            ResultPartitionWriter writer = produceAndFinish(shuffle, partition);
            writer.close(); // after finish(): the data stays for the consumers

            for (int s = 0; s < SUBPARTITIONS; s++) {
                RecordVerifier verifier = new RecordVerifier("consumer " + s, new int[] {s});
                RecordTraffic.readToEnd(shuffle.setUpReader("consumer " + s, s, partition), verifier);
                verifier.endOfChannel(0, RECORDS);
            }

            ShuffleEnvironment producer = shuffle.producerEnvironment();
            Await.until(() -> !producer.partitionsOccupyingLocalResources().contains(partition.id()), Await.EVENTUALLY,
                    () -> "partition " + partition.id() + " released after it was read; occupying: "
                            + producer.partitionsOccupyingLocalResources());
            assertAllSegmentsFree(producer);
        }
    }

    @EveryLayout
    void releasePartitionsLocally_releasesAnUnreadPartition_andItsConsumerFailsRatherThanEnds(Layout layout)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(SUBPARTITIONS);
            produceAndFinish(shuffle, partition);
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition); // nothing read yet

            ShuffleEnvironment producer = shuffle.producerEnvironment();
            assertTrue(producer.partitionsOccupyingLocalResources().contains(partition.id()),
                    "the finished, unread partition occupies its environment");
            producer.releasePartitionsLocally(List.of(partition.id()));

            assertEquals(List.of(), List.copyOf(producer.partitionsOccupyingLocalResources()),
                    "partitions occupying the producer's environment after the release");
            assertAllSegmentsFree(producer);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));
            Throwable failure = consumer.awaitFailure(Await.EVENTUALLY);
            assertInstanceOf(ShuffleException.class, failure, "what the consumer of the released partition got");
            assertTrue(failure.getMessage().contains(partition.id().toString()),
                    "the message names the partition: " + failure.getMessage());
        }
    }

    /** Emits {@value #RECORDS} records to each subpartition and finishes; subpartition s carries channel s. */
    private static ResultPartitionWriter produceAndFinish(ShuffleFixture shuffle, RegisteredPartition partition)
            throws Exception {
        ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
        writer.setup();
        for (int s = 0; s < SUBPARTITIONS; s++) {
            RecordTraffic.emit(writer, s, new RecordGenerator(s, SEED,
                    RecordSizes.uniform(RecordFormat.HEADER_BYTES, 200)), RECORDS);
        }
        writer.finish();
        return writer;
    }

    private static void assertAllSegmentsFree(ShuffleEnvironment environment) {
        ShuffleMetrics metrics = environment.metrics();
        assertEquals(metrics.totalSegments(), metrics.availableSegments(),
                "free segments of " + environment.resourceId() + " while it is still open");
    }
}
