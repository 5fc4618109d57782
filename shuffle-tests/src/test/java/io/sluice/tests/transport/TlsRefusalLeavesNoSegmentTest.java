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
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.TestPkis;
import io.sluice.tests.support.Transport;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A consumer refused at TLS (no TLS at all, or a certificate another CA signed) asked for a partition whose writer
 * holds flushed, unfinished data; a good consumer then reads another partition of the same producer environment;
 * the writers are closed on their own thread and every partition released. Every segment of the producer's
 * environment comes back (docs/behaviours.md H-1; docs/contract.md section 9, TLS at run time).
 */
class TlsRefusalLeavesNoSegmentTest {

    /** The default segment size: 100 records of 100 bytes fill part of one buffer. */
    private static final int SEGMENT = 32 * 1024;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(256, SEGMENT)
            .with(ShuffleOptions.SSL_HANDSHAKE_TIMEOUT, Duration.ofSeconds(1));
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(10);
    private static final RecordSizes SIZES = RecordSizes.fixed(100);
    private static final long SEED = 0x11L;

    @ParameterizedTest(name = "refused consumer: {0}")
    @ValueSource(strings = {"without TLS", "foreign CA"})
    void consumerRefusedAtTls_leavesNoSegmentOfTheProducerBehind(String refused) throws Exception {
        ShuffleConfig trusted = TestPkis.cluster().configure(Transport.NIO.configure(CONFIG), "jdk");
        ShuffleConfig refusedConfig = refused.equals("without TLS") ? Transport.NIO.configure(CONFIG)
                : TestPkis.foreign().configure(Transport.NIO.configure(CONFIG), "jdk");
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, trusted)) {
            ShuffleEnvironment producers = shuffle.producerEnvironment();
            RegisteredPartition unread = shuffle.registerPartition(1);
            ResultPartitionWriter unreadWriter = shuffle.createWriter("producer of the unread partition", unread);
            CountDownLatch flushed = new CountDownLatch(1);
            CountDownLatch closeWriter = new CountDownLatch(1);
            // The writer's own thread emits, flushes, never finishes, and later closes it (returning its buffers).
            BackgroundTask<Void> producer = shuffle.fork("producer", () -> {
                unreadWriter.setup();
                RecordTraffic.emit(unreadWriter, 0, new RecordGenerator(0, SEED, SIZES), 100);
                unreadWriter.flush(0);
                flushed.countDown();
                closeWriter.await();
                unreadWriter.close();
                return null;
            });
            flushed.await();

            try (OutsideConsumer consumer = OutsideConsumer.start("refused-consumer", refusedConfig, unread)) {
                assertInstanceOf(TransportException.class, consumer.awaitReadFailure(REFUSED_WITHIN),
                        "a consumer " + refused + " is refused");
            }
            Endpoints.streamAndVerify(shuffle, "trusted", SIZES, SEED, 100);

            closeWriter.countDown();
            producer.await();
            producers.releasePartitionsLocally(List.copyOf(producers.partitionsOccupyingLocalResources()));

            Await.until(() -> {
                ShuffleMetrics metrics = producers.metrics();
                return metrics.availableSegments() == metrics.totalSegments();
            }, Await.EVENTUALLY, () -> "the producers' environment has every segment back: "
                    + producers.metrics().availableSegments() + " of " + producers.metrics().totalSegments());
        }
    }
}
