package io.sluice.tests.transport;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
import io.sluice.api.ShuffleOptions;
import io.sluice.api.TransportException;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.TestPkis;
import io.sluice.tests.support.Transport;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A TLS producer's writer emits 100 records of 100 bytes into one subpartition and flushes, never finishing, on a
 * producer thread of its own; a consumer refused at TLS (no TLS at all, or a certificate another CA signed) asks for
 * that partition; a good consumer then reads another partition of the same producer environment; the writer is
 * closed by another thread, its producer thread ends, and every partition is released. Every segment of the
 * producer's environment (the default memory: 2,048 segments) comes back, the partial buffer the producer was
 * filling included (docs/contract.md section 9: a writer closed from another thread; TLS at run time).
 */
class TlsRefusalLeavesNoSegmentTest {

    private static final ShuffleConfig CONFIG = ShuffleConfig.empty()
            .with(ShuffleOptions.SSL_HANDSHAKE_TIMEOUT, Duration.ofSeconds(1));
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(10);
    private static final RecordSizes SIZES = RecordSizes.fixed(100);
    private static final long RECORDS = 100;
    private static final long SEED = 0x11L;

    @ParameterizedTest(name = "refused consumer: {0}")
    @ValueSource(strings = {"without TLS", "foreign CA"})
    void consumerRefusedAtTls_thenWriterClosedByAnotherThread_leavesNoSegmentOfTheProducerBehind(String refused)
            throws Exception {
        ShuffleConfig trusted = TestPkis.cluster().configure(Transport.NIO.configure(CONFIG), "jdk");
        ShuffleConfig refusedConfig = refused.equals("without TLS") ? Transport.NIO.configure(CONFIG)
                : TestPkis.foreign().configure(Transport.NIO.configure(CONFIG), "jdk");
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, trusted)) {
            ShuffleEnvironment producers = shuffle.producerEnvironment();
            RegisteredPartition unread = shuffle.registerPartition(1);
            ResultPartitionWriter unreadWriter = shuffle.createWriter("producer of the unread partition", unread);
            // The producer thread emits, flushes and ends; its buffer under construction stays with the writer.
            BackgroundTask<Void> producer = shuffle.fork("producer", () -> {
                unreadWriter.setup();
                RecordTraffic.emit(unreadWriter, 0, new RecordGenerator(0, SEED, SIZES), RECORDS);
                unreadWriter.flush(0);
                return null;
            });
            producer.await();

            try (OutsideConsumer consumer = OutsideConsumer.start("refused-consumer", refusedConfig, unread)) {
                assertInstanceOf(TransportException.class, consumer.awaitReadFailure(REFUSED_WITHIN),
                        "a consumer " + refused + " is refused");
            }
            Endpoints.streamAndVerify(shuffle, "trusted", SIZES, SEED, RECORDS);

            unreadWriter.close(); // on the test's thread, not the producer's
            producers.releasePartitionsLocally(List.copyOf(producers.partitionsOccupyingLocalResources()));

            Await.until(() -> {
                ShuffleMetrics metrics = producers.metrics();
                return metrics.availableSegments() == metrics.totalSegments();
            }, Await.EVENTUALLY, () -> "the producers' environment has every segment back: "
                    + producers.metrics().availableSegments() + " of " + producers.metrics().totalSegments());
        }
    }
}
