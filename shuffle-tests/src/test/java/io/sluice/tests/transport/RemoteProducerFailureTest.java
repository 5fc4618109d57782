package io.sluice.tests.transport;

import io.sluice.api.ProducerFailedException;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryTransport;
import io.sluice.tests.support.MemoryConfig;

import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.StreamDigest;
import io.sluice.tests.support.Transport;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A producer's {@code fail(cause)} reaches its consumer in the other environment as a
 * {@link ProducerFailedException} carrying the cause's message; it is an error of that channel only, so another
 * consumer reading over the same connection goes on to the end.
 */
class RemoteProducerFailureTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, SEGMENT_SIZE);
    /** The bound a failure is held to here (docs/contract.md: failures surface within seconds). */
    private static final Duration FAILURE_DEADLINE = Duration.ofSeconds(5);
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * SEGMENT_SIZE);
    private static final int RECORDS_BEFORE_FAILURE = 5;
    /** The healthy producer's records, sent after the other one failed: many buffers over the shared connection. */
    private static final int HEALTHY_RECORDS = 2000;
    private static final String CAUSE = "disk /data/7 is full after 5 records";
    private static final long SEED = 0xFA11L;

    @EveryTransport
    void producerFail_reachesTheRemoteConsumerAsProducerFailedExceptionWithItsMessage_andSparesTheConnection(
            Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            // Both partitions on connection index 0: their consumers share one connection.
            RegisteredPartition failingPartition = shuffle.registerPartition(1, 0);
            RegisteredPartition healthyPartition = shuffle.registerPartition(1, 0);
            ResultPartitionWriter failing = Endpoints.setUpWriter(shuffle, "failing producer", failingPartition);
            ResultPartitionWriter healthy = Endpoints.setUpWriter(shuffle, "healthy producer", healthyPartition);
            RecordReader failingReader = Endpoints.setUpReader(shuffle, "consumer of the failing producer", 0,
                    failingPartition);
            RecordReader healthyReader = Endpoints.setUpReader(shuffle, "consumer of the healthy producer", 0,
                    healthyPartition);
            assertEquals(1, shuffle.consumerEnvironment().metrics().openConnections(),
                    "connections of the two consumers, which read the same producer on the same connection index");

            RecordTraffic.emit(failing, 0, new RecordGenerator(0, SEED, SIZES), RECORDS_BEFORE_FAILURE);
            failing.flushAll();
            AtomicLong read = new AtomicLong();
            RecordVerifier failingVerifier = new RecordVerifier("consumer of the failing producer", new int[] {0});
            BackgroundTask<Long> failingConsumer = shuffle.fork("consumer of the failing producer",
                    () -> CountingReads.readToEnd(failingReader, failingVerifier, new StreamDigest(), read));
            // Mid-stream: the producer's server serves the request (the records arrived), the consumer waits for more.
            Await.until(() -> read.get() == RECORDS_BEFORE_FAILURE && failingConsumer.isParkedIn("getNext"),
                    Await.EVENTUALLY, () -> "the consumer read " + RECORDS_BEFORE_FAILURE + " records and waits; it "
                            + "read " + read.get());

            failing.fail(new IllegalStateException(CAUSE));

            assertProducerFailedWithCause(failingConsumer.awaitFailure(FAILURE_DEADLINE));
            RecordVerifier healthyVerifier = new RecordVerifier("consumer of the healthy producer", new int[] {1});
            BackgroundTask<Long> healthyConsumer = shuffle.fork("consumer of the healthy producer",
                    () -> RecordTraffic.readToEnd(healthyReader, healthyVerifier));
            BackgroundTask<Long> healthyProducer = shuffle.fork("healthy producer", () -> {
                RecordGenerator records = new RecordGenerator(1, SEED, SIZES);
                RecordTraffic.emit(healthy, 0, records, HEALTHY_RECORDS);
                healthy.finish();
                return records.nextSequence();
            });
            BackgroundTask.awaitAll(Await.EVENTUALLY, healthyProducer, healthyConsumer);
            healthyVerifier.endOfChannel(0, healthyProducer.await(Await.EVENTUALLY));
            assertEquals(HEALTHY_RECORDS, healthyConsumer.await(Await.EVENTUALLY),
                    "records read over the connection after the other channel's failure");
        }
    }

    @EveryTransport
    void producerFailedBeforeTheRemoteRequestArrived_failsTheConsumerWithProducerFailedException_withinFiveSeconds(
            Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "failing producer", partition);
            RecordTraffic.emit(writer, 0, new RecordGenerator(0, SEED, SIZES), RECORDS_BEFORE_FAILURE);
            writer.flushAll();
            // Deterministically what happens when the producer fails while a consumer's request is on its way (seen
            // in about one of four runs of the test above before it waited for the records): the server gets the
            // request after the failure.
            writer.fail(new IllegalStateException(CAUSE));
            RecordReader reader = Endpoints.setUpReader(shuffle, "consumer", 0, partition);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));

            assertProducerFailedWithCause(consumer.awaitFailure(FAILURE_DEADLINE));
        }
    }

    private static void assertProducerFailedWithCause(Throwable failure) {
        assertInstanceOf(ProducerFailedException.class, failure, "what the consumer of the failed producer got");
        assertTrue(failure.getMessage().contains(CAUSE), "the producer's cause is in the message: "
                + failure.getMessage());
    }
}
