package io.sluice.tests;

import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
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

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A producer that fails, or gives up without finishing, fails the consumers that are reading it. */
class ProducerFailureTest {

    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, MemoryConfig.SMALL_SEGMENT);
    /** The bound a failure is held to here (docs/contract.md: failures surface within seconds). */
    private static final Duration FAILURE_DEADLINE = Duration.ofSeconds(1);
    private static final int RECORDS_BEFORE_FAILURE = 5;
    private static final long SEED = 13;

    @EveryLayout
    void failedProducer_reachesTheWaitingConsumerWithinASecond_asProducerFailedExceptionWithItsMessage(Layout layout)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            BackgroundTask<Long> consumer = startWaitingConsumer(shuffle, partition, writer);

            writer.fail(new IllegalStateException("disk /data/7 is full"));
            Throwable failure = consumer.awaitFailure(FAILURE_DEADLINE);

            assertInstanceOf(ProducerFailedException.class, failure, "what the consumer got");
            assertTrue(failure.getMessage().contains("disk /data/7 is full"),
                    "the producer's cause is in the message: " + failure.getMessage());
        }
    }

    @EveryLayout
    void producerClosingWithoutFinish_failsTheWaitingConsumer_withProducerFailedException(Layout layout)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            BackgroundTask<Long> consumer = startWaitingConsumer(shuffle, partition, writer);

            writer.close();
            Throwable failure = consumer.awaitFailure(Await.EVENTUALLY);

            assertInstanceOf(ProducerFailedException.class, failure, "what the consumer got");
            assertTrue(failure.getMessage().contains(partition.id().toString()),
                    "the message names the partition: " + failure.getMessage());
        }
    }

    /**
     * Sends a few records, and starts a consumer that reads them and then waits in the gate for more.
     *
     * @return the consumer, parked in the gate; it returns only if the gate ends without a failure
     */
    private static BackgroundTask<Long> startWaitingConsumer(ShuffleFixture shuffle, RegisteredPartition partition,
                                                             ResultPartitionWriter writer) throws Exception {
        RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
        RecordGenerator records = new RecordGenerator(0, SEED, RecordSizes.uniform(RecordFormat.HEADER_BYTES, 100));
        RecordTraffic.emit(writer, 0, records, RECORDS_BEFORE_FAILURE);
        writer.flushAll();
        BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> {
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            RecordTraffic.read(reader, verifier, RECORDS_BEFORE_FAILURE);
            return RecordTraffic.readToEnd(reader, verifier);
        });
        consumer.awaitParkedIn("getNext", Await.EVENTUALLY);
        return consumer;
    }
}
