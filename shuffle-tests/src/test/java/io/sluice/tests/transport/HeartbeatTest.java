package io.sluice.tests.transport;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
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

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Heartbeats tell a dead peer from a slow one. A connection that goes silent (a proxy between the environments
 * freezes: both sockets stay open, nothing moves) fails the consumer with TransportException within a few seconds,
 * and the producer side releases its reader, so every segment comes back. A producer that sends one record every 3 s
 * with a 2 s timeout is alive: its heartbeats keep the connection.
 */
class HeartbeatTest {

    private static final ShuffleConfig CONFIG = MemoryConfig.of(128, MemoryConfig.SMALL_SEGMENT)
            .with(ShuffleOptions.NETTY_HEARTBEAT_INTERVAL, Duration.ofMillis(200))
            .with(ShuffleOptions.NETTY_HEARTBEAT_TIMEOUT, Duration.ofSeconds(2));
    /** The timeout plus generous slack for a loaded machine: what the test guards is "not never". */
    private static final Duration FAILS_WITHIN = Duration.ofSeconds(15);
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * MemoryConfig.SMALL_SEGMENT);
    private static final long SEED = 0x4EA27L;
    private static final long RECORDS_BEFORE_FREEZE = 200;

    @EveryTcpTransport
    void silentConnection_failsTheConsumerWithTransportException_andTheProducerSideReleasesItsReader(
            Transport transport) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG);
             FreezingProxy proxy = FreezingProxy.start(shuffle.producerEnvironment().dataAddress())) {
            RegisteredPartition partition = shuffle.registerPartition(1, 0, proxy.address());
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer", partition);
            RecordReader reader = Endpoints.setUpReader(shuffle, "consumer", 0, partition);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong read = new AtomicLong();
            BackgroundTask<Long> producer = shuffle.fork("producer", () -> {
                RecordGenerator records = new RecordGenerator(0, SEED, SIZES);
                while (!stop.get()) {
                    RecordTraffic.emitNext(writer, 0, records);
                }
                return records.nextSequence();
            });
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> CountingReads.readToEnd(reader, verifier, new StreamDigest(), read));
            Await.until(() -> read.get() >= RECORDS_BEFORE_FREEZE, Await.EVENTUALLY,
                    () -> "the consumer read " + RECORDS_BEFORE_FREEZE + " records through the proxy: " + read);

            proxy.freeze();

            LostConnections.assertTransportExceptionNamingTheProducer(consumer.awaitFailure(FAILS_WITHIN),
                    shuffle.producerEnvironment().resourceId().value(), "the consumer");
            Await.until(() -> shuffle.producerEnvironment().metrics().openConnections() == 0, FAILS_WITHIN,
                    () -> "the producer side closed the silent connection: " + shuffle.producerEnvironment().metrics());
            // Its reader released, the subpartition drops what the producer still emits: the producer is never stuck.
            stop.set(true);
            producer.await(Await.EVENTUALLY);
            writer.close();
            assertEquals(shuffle.producerEnvironment().metrics().totalSegments(),
                    shuffle.producerEnvironment().metrics().availableSegments(),
                    "every producer segment is back once the writer closed");
        }
    }

    @EveryTcpTransport
    void slowProducer_oneRecordEveryThreeSeconds_withATwoSecondTimeout_isNotFailed(Transport transport)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "slow producer", partition);
            RecordReader reader = Endpoints.setUpReader(shuffle, "consumer", 0, partition);
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> RecordTraffic.readToEnd(reader, verifier));
            RecordGenerator records = new RecordGenerator(0, SEED, SIZES);
            long slowRecords = 2;
            for (int i = 0; i < slowRecords; i++) {
                // The behaviour under test is silence longer than the timeout: a pause, not a wait for a condition.
                Thread.sleep(3_000);
                RecordTraffic.emitNext(writer, 0, records);
                writer.flushAll();
            }
            writer.finish();

            consumer.await(Await.EVENTUALLY);
            verifier.endOfChannel(0, slowRecords);
            verifier.verifyAllEnded();
            assertEquals(slowRecords, verifier.records(), "both slow records arrived over the one connection");
        }
    }
}
