package io.sluice.tests.transport;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
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

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A remote consumer that closes its gate in the middle of the stream releases what the producer's side keeps for
 * it: the producer, blocked on that consumer, goes on (its records for it are dropped), the other consumer on the
 * same connection reads everything, and the producer's environment gets all of its memory back.
 */
class ConsumerGateClosedMidStreamTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, SEGMENT_SIZE);
    /** Per subpartition; about 10 MiB for the one that stays: far more than the partition's buffers. */
    private static final int RECORDS = 5_000;
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, SEGMENT_SIZE);
    private static final int READ_BEFORE_LEAVING = 10;
    private static final int STAYING = 0;
    private static final int LEAVING = 1;
    private static final long SEED = 0xC105EL;

    @EveryTransport
    void gateClosedMidStream_releasesTheProducerSide_whileTheOtherConsumerOnTheConnectionReadsEverything(
            Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            ShuffleEnvironment producerEnvironment = shuffle.producerEnvironment();
            RegisteredPartition partition = shuffle.registerPartition(2);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer", partition);
            RecordReader staying = Endpoints.setUpReader(shuffle, "staying consumer", STAYING, partition);
            RecordReader leaving = Endpoints.setUpReader(shuffle, "leaving consumer", LEAVING, partition);
            BackgroundTask<Long> producer = shuffle.fork("producer", () -> {
                RecordGenerator[] records = {new RecordGenerator(STAYING, SEED, SIZES),
                        new RecordGenerator(LEAVING, SEED, SIZES)};
                for (int i = 0; i < RECORDS; i++) {
                    RecordTraffic.emitNext(writer, STAYING, records[STAYING]);
                    RecordTraffic.emitNext(writer, LEAVING, records[LEAVING]);
                }
                writer.finish();
                return records[STAYING].nextSequence();
            });
            RecordVerifier stayingVerifier = new RecordVerifier("staying consumer", new int[] {STAYING});
            BackgroundTask<Long> stayingConsumer = shuffle.fork("staying consumer",
                    () -> RecordTraffic.readToEnd(staying, stayingVerifier));

            RecordTraffic.read(leaving, new RecordVerifier("leaving consumer", new int[] {LEAVING}),
                    READ_BEFORE_LEAVING);
            // Nobody reads subpartition LEAVING now: its buffers pile up until the producer blocks on them.
            producer.awaitParkedIn("emitRecord", Await.EVENTUALLY);
            leaving.close();

            BackgroundTask.awaitAll(Await.EVENTUALLY, producer, stayingConsumer);
            stayingVerifier.endOfChannel(0, producer.await(Await.EVENTUALLY));
            assertEquals(RECORDS, stayingConsumer.await(Await.EVENTUALLY), "records read by the staying consumer");
            Await.until(() -> !producerEnvironment.partitionsOccupyingLocalResources().contains(partition.id()),
                    Await.EVENTUALLY, () -> "partition " + partition.id() + " released; still occupying: "
                            + producerEnvironment.partitionsOccupyingLocalResources());
            writer.close();
            // Before any environment closes: the producer's side let go of every buffer by itself.
            Await.until(() -> allSegmentsAvailable(producerEnvironment), Await.EVENTUALLY,
                    () -> "every segment back in the producer's environment: " + producerEnvironment.metrics());
            Await.until(() -> shuffle.consumerEnvironment().metrics().openConnections() == 0, Await.EVENTUALLY,
                    () -> "the connection closed after its last channel: " + shuffle.consumerEnvironment().metrics());
        }
    }

    private static boolean allSegmentsAvailable(ShuffleEnvironment environment) {
        return environment.metrics().availableSegments() == environment.metrics().totalSegments();
    }
}
