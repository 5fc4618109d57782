package io.sluice.tests;

import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
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

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A gate may be set up before its producer: its request is retried with backoff, then given up. */
class PartitionRequestRetryTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig BASE = MemoryConfig.of(64, SEGMENT_SIZE);
    private static final int RECORDS = 1000;
    private static final long SEED = 17;

    @EveryLayout
    void gateSetUpBeforeItsProducer_readsEverything_onceTheProducerAppears(Layout layout) throws Exception {
        // Retries from 10 ms, doubling up to 10 s: the producer appears long before the requests are given up.
        ShuffleConfig config = BASE
                .with(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF, Duration.ofMillis(10))
                .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, Duration.ofSeconds(10));
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, config)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            assertFalse(shuffle.producerEnvironment().partitionsOccupyingLocalResources().contains(partition.id()),
                    "the producer had not appeared when the gate requested its partition");
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> RecordTraffic.readToEnd(reader, verifier));

            ResultPartitionWriter writer = shuffle.createWriter("late producer", partition);
            writer.setup();
            BackgroundTask<Long> producer = shuffle.fork("late producer", () -> {
                RecordGenerator records = new RecordGenerator(0, SEED,
                        RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * SEGMENT_SIZE));
                RecordTraffic.emit(writer, 0, records, RECORDS);
                writer.finish();
                return records.nextSequence();
            });

            BackgroundTask.awaitAll(Await.EVENTUALLY, producer, consumer);
            verifier.endOfChannel(0, producer.await(Await.EVENTUALLY));
            assertEquals(RECORDS, consumer.await(Await.EVENTUALLY), "records read from the late producer");
        }
    }

    @EveryLayout
    void gateWhoseProducerNeverAppears_failsWithPartitionNotFoundException_onceItsRetriesRunOut(Layout layout)
            throws Exception {
        Duration initial = Duration.ofMillis(20);
        Duration max = Duration.ofMillis(160);
        ShuffleConfig config = BASE
                .with(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF, initial)
                .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, max);
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, config)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            long start = System.nanoTime();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));

            Throwable failure = consumer.awaitFailure(Await.EVENTUALLY);
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;

            PartitionNotFoundException notFound = assertInstanceOf(PartitionNotFoundException.class, failure,
                    "what the consumer got");
            assertEquals(partition.id(), notFound.partitionId(), "the partition the exception names");
            assertTrue(notFound.getMessage().contains(partition.id().toString()),
                    "the message names the partition: " + notFound.getMessage());
            System.out.printf("%s: PartitionNotFoundException %d ms after setup, with backoff %d..%d ms%n", layout,
                    elapsedMillis, initial.toMillis(), max.toMillis());
        }
    }
}
