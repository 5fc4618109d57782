package io.sluice.tests.transport;

import io.sluice.api.PartitionNotFoundException;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
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
import io.sluice.tests.support.Transport;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A remote consumer may ask for a partition before its producer has registered it: the request waits on the
 * producer's server, or is retried with backoff, and the partition is read fully once it appears. A partition that
 * never appears fails the consumer with {@link PartitionNotFoundException} once the backoff is used up.
 */
class LatePartitionRegistrationTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, SEGMENT_SIZE);
    /** The scenario: the producer sets up its partition this long after the consumer asked for it. */
    private static final long REGISTRATION_DELAY_MILLIS = 1000;
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * SEGMENT_SIZE);
    private static final int RECORDS = 1000;
    private static final long SEED = 0x1A7EL;

    @EveryTransport
    void partitionRegisteredOneSecondAfterTheRequest_isReadFully_whileTheServerKeepsTheRequest(Transport transport)
            throws Exception {
        // The producer's server keeps an unanswered request for the initial backoff: longer than the delay.
        readPartitionRegisteredLate(transport, withBackoff(Duration.ofSeconds(5), Duration.ofSeconds(10)));
    }

    @EveryTransport
    void partitionRegisteredOneSecondAfterTheRequest_isReadFully_afterTheConsumerRetried(Transport transport)
            throws Exception {
        // 50, 100, 200, 400, 800 ms: the server answers "not found" several times before the partition appears.
        readPartitionRegisteredLate(transport, withBackoff(Duration.ofMillis(50), Duration.ofSeconds(10)));
    }

    @EveryTransport
    void partitionNeverRegistered_failsTheRemoteConsumerWithPartitionNotFound_afterTheBackoff(Transport transport)
            throws Exception {
        ShuffleConfig config = withBackoff(Duration.ofMillis(20), Duration.ofMillis(80));
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, config)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            RecordReader reader = Endpoints.setUpReader(shuffle, "consumer", 0, partition);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));

            Throwable failure = consumer.awaitFailure(Await.EVENTUALLY);

            assertInstanceOf(PartitionNotFoundException.class, failure, "what the consumer got");
            assertEquals(partition.id(), ((PartitionNotFoundException) failure).partitionId(),
                    "the partition the exception names");
            assertTrue(failure.getMessage().contains(partition.id().toString()),
                    "the message names the partition: " + failure.getMessage());
        }
    }

    private static ShuffleConfig withBackoff(Duration initial, Duration max) {
        return CONFIG.with(ShuffleOptions.PARTITION_REQUEST_INITIAL_BACKOFF, initial)
                .with(ShuffleOptions.PARTITION_REQUEST_MAX_BACKOFF, max);
    }

    private static void readPartitionRegisteredLate(Transport transport, ShuffleConfig config) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, config)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            RecordReader reader = Endpoints.setUpReader(shuffle, "consumer", 0, partition);
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> RecordTraffic.readToEnd(reader, verifier));
            // setup() connected and sent the request: the producer's server holds it, nothing is registered.
            Await.until(() -> shuffle.producerEnvironment().metrics().openConnections() == 1, Await.EVENTUALLY,
                    () -> "the consumer's connection reached the producer: " + shuffle.producerEnvironment().metrics());
            assertTrue(shuffle.producerEnvironment().partitionsOccupyingLocalResources().isEmpty(),
                    "no partition registered before the delay");

            ResultPartitionWriter writer = shuffle.createWriter("late producer", partition);
            BackgroundTask<Long> producer = CompletableFuture.supplyAsync(
                    () -> shuffle.fork("late producer", () -> {
                        writer.setup();
                        RecordGenerator records = new RecordGenerator(0, SEED, SIZES);
                        RecordTraffic.emit(writer, 0, records, RECORDS);
                        writer.finish();
                        return records.nextSequence();
                    }),
                    CompletableFuture.delayedExecutor(REGISTRATION_DELAY_MILLIS, TimeUnit.MILLISECONDS)).join();

            BackgroundTask.awaitAll(Await.EVENTUALLY, producer, consumer);
            verifier.endOfChannel(0, producer.await(Await.EVENTUALLY));
            assertEquals(RECORDS, consumer.await(Await.EVENTUALLY), "records read from the late partition");
        }
    }
}
