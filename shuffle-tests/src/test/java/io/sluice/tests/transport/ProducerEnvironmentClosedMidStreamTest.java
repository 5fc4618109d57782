package io.sluice.tests.transport;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleException;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryTcpTransport;
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
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;


/**
 * The producers' environment closes while its consumers in another environment are in the middle of their streams:
 * every consumer channel, on every connection to it, fails with a {@code TransportException} that names the remote
 * address and the producer environment, within five seconds; none hangs. The producers, still emitting, fail
 * with a {@code ShuffleException} saying the environment was closed (RP-2): none keeps writing into a
 * released partition.
 */
class ProducerEnvironmentClosedMidStreamTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(128, SEGMENT_SIZE);
    /** One channel per gate, so each channel's failure is seen on its own. */
    private static final int CHANNELS = 4;
    /** Channels alternate between two connection indexes: two connections fail at once. */
    private static final int CONNECTIONS = 2;
    /** The bound a failure is held to here (docs/contract.md: failures surface within seconds), from the close. */
    private static final Duration FAILURE_DEADLINE = Duration.ofSeconds(5);
    /** Each consumer has read this much before the close: the streams are running. */
    private static final long RECORDS_BEFORE_CLOSE = 200;
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * SEGMENT_SIZE);
    private static final long SEED = 0xC1053L;

    @EveryTcpTransport
    void producerEnvironmentClosedMidStream_failsEveryConsumerChannelWithTransportException_withinFiveSeconds(
            Transport transport) throws Exception {
        closeProducerEnvironmentMidStream(transport);
    }

    @Test
    void producerEnvironmentClosedMidStream_overTheLocalTransport_failsEveryConsumerChannelWithTransportException()
            throws Exception {
        closeProducerEnvironmentMidStream(Transport.LOCAL);
    }

    private static void closeProducerEnvironmentMidStream(Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            AtomicBoolean stopProducing = new AtomicBoolean();
            List<AtomicLong> recordsRead = new ArrayList<>();
            List<BackgroundTask<Long>> producers = new ArrayList<>();
            List<BackgroundTask<Long>> consumers = new ArrayList<>();
            for (int i = 0; i < CHANNELS; i++) {
                RegisteredPartition partition = shuffle.registerPartition(1, i % CONNECTIONS);
                ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer " + i, partition);
                RecordReader reader = Endpoints.setUpReader(shuffle, "consumer " + i, 0, partition);
                int stream = i;
                AtomicLong read = new AtomicLong();
                recordsRead.add(read);
                producers.add(shuffle.fork("producer " + i, () -> produceUntil(stopProducing, writer, stream)));
                RecordVerifier verifier = new RecordVerifier("consumer " + i, new int[] {stream});
                consumers.add(shuffle.fork("consumer " + i,
                        () -> CountingReads.readToEnd(reader, verifier, new StreamDigest(), read)));
            }
            Await.until(() -> recordsRead.stream().allMatch(read -> read.get() >= RECORDS_BEFORE_CLOSE),
                    Await.EVENTUALLY, () -> "every consumer read " + RECORDS_BEFORE_CLOSE + " records: " + recordsRead);

            Deadline deadline = Deadline.in(FAILURE_DEADLINE);
            shuffle.producerEnvironment().close();

            String producerId = shuffle.producerEnvironment().resourceId().value();
            for (int i = 0; i < CHANNELS; i++) {
                LostConnections.assertTransportExceptionNamingTheProducer(
                        consumers.get(i).awaitFailure(deadline.remaining()), producerId, "consumer " + i);
            }
            String closed = "shuffle environment " + producerId + " was closed";
            for (BackgroundTask<Long> producer : producers) {
                Throwable failure = producer.awaitFailure(Await.EVENTUALLY);
                assertTrue(failure instanceof ShuffleException && failure.getMessage().contains(closed),
                        producer.name() + " ended with " + failure);
            }
            stopProducing.set(true);
            Await.until(() -> shuffle.consumerEnvironment().metrics().openConnections() == 0, Await.EVENTUALLY,
                    () -> "the consumers' environment dropped its connections: "
                            + shuffle.consumerEnvironment().metrics());
        }
    }

    /** Producer thread: records until told to stop, or until emitRecord fails (after the close it must). */
    private static long produceUntil(AtomicBoolean stop, ResultPartitionWriter writer, int stream) throws Exception {
        RecordGenerator records = new RecordGenerator(stream, SEED, SIZES);
        while (!stop.get()) {
            RecordTraffic.emitNext(writer, 0, records);
        }
        return records.nextSequence();
    }
}
