package io.sluice.tests.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
import io.sluice.testing.Await;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.Transport;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One gate of 2,000 remote channels, each reading a one-subpartition pipelined partition of another environment over
 * eight connections (nio, loopback). With 4 KiB segments and 8 floating buffers most channels wait for a floating
 * buffer at some point, and a buffer the reader recycles is offered along the many channels whose backlog dropped
 * meanwhile. Every record arrives, and afterwards both environments have every segment back and every connection is
 * closed (docs/behaviours.md RIC-9, RIC-10, H-1).
 *
 * <p>The reader runs on a thread with a small stack: a hand-off that nested once per waiting channel overflowed a
 * default stack with 4,000 channels; on a small one half as many fail for certain, at half the cost.
 */
class LargeGateTest {

    private static final int CHANNELS = 2_000;
    private static final int CONNECTION_INDEXES = 8;
    private static final int RECORDS_PER_CHANNEL = 100;
    private static final RecordSizes SIZES = RecordSizes.fixed(100);
    private static final long SEED = 0x4000L;
    private static final long SMALL_STACK_BYTES = 256 * 1024;
    /** A hang guard for thousands of streams on a busy machine; the test takes seconds. */
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    /**
     * Per environment: the consumer reserves 2,000 channels x 2 exclusive + 8 floating = 4,008 segments; the
     * producers' 2,000 partitions need 2 each to be set up, and some more to hold what the consumer has not read.
     */
    private static final ShuffleConfig CONFIG = MemoryConfig.of(6_000, MemoryConfig.SMALL_SEGMENT);

    @Test
    @Timeout(300)
    void gateOfThousandsOfRemoteChannels_readsEveryRecord_andLeavesNoSegmentOrConnectionBehind() throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(Transport.NIO, CONFIG)) {
            ShuffleEnvironment producers = shuffle.producerEnvironment();
            ShuffleEnvironment consumers = shuffle.consumerEnvironment();
            RegisteredPartition[] partitions = new RegisteredPartition[CHANNELS];
            ResultPartitionWriter[] writers = new ResultPartitionWriter[CHANNELS];
            int[] streams = new int[CHANNELS];
            for (int i = 0; i < CHANNELS; i++) {
                partitions[i] = shuffle.registerPartition(1, i % CONNECTION_INDEXES);
                writers[i] = Endpoints.setUpWriter(shuffle, "producer " + i, partitions[i]);
                streams[i] = i;
            }
            RecordReader reader = Endpoints.setUpReader(shuffle, "consumer", 0, partitions);
            RecordVerifier verifier = new RecordVerifier("consumer", streams);

            BackgroundTask<Void> consumer = BackgroundTask.startWithStack("consumer", SMALL_STACK_BYTES,
                    () -> RecordTraffic.readToEnd(reader, verifier));
            BackgroundTask<Void> producer = shuffle.fork("producer", () -> produce(writers));
            BackgroundTask.awaitAll(HANG_GUARD, consumer, producer);

            assertEquals((long) CHANNELS * RECORDS_PER_CHANNEL, verifier.records());
            for (int c = 0; c < CHANNELS; c++) {
                verifier.endOfChannel(c, RECORDS_PER_CHANNEL);
            }
            verifier.verifyAllEnded();
            reader.close();
            Await.until(() -> consumers.metrics().openConnections() == 0
                            && producers.metrics().openConnections() == 0, Await.EVENTUALLY,
                    () -> "both sides closed their connections after the last channel; open on the consumers' side "
                            + consumers.metrics().openConnections() + ", on the producers' side "
                            + producers.metrics().openConnections());
            awaitEverySegmentBack("consumers'", consumers);
            awaitEverySegmentBack("producers'", producers);
        }
    }

    /** Waits until the environment's pool has every segment back, its writers released and its gates closed. */
    private static void awaitEverySegmentBack(String which, ShuffleEnvironment environment) {
        Await.until(() -> {
            ShuffleMetrics metrics = environment.metrics();
            return metrics.availableSegments() == metrics.totalSegments();
        }, Await.EVENTUALLY, () -> "the " + which + " environment has every segment back: "
                + environment.metrics().availableSegments() + " of " + environment.metrics().totalSegments());
    }

    /** One thread for all partitions, round-robin, so that every connection carries many channels at once. */
    private static Void produce(ResultPartitionWriter[] writers) throws Exception {
        RecordTraffic.emitRoundRobinAndFinish(writers, RECORDS_PER_CHANNEL, SEED, SIZES);
        return null;
    }
}
