package io.sluice.tests.transport;

import io.sluice.api.RecordFraming;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
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

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Credit-based flow control across environments: a consumer that reads in bursts and pauses in between makes its
 * remote producer block, and while it does, the data between them stays inside the buffers the two sides reserved
 * for this channel, far below either environment's memory; nothing piles up in the transport.
 */
class SlowConsumerBackpressureTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final int BUFFERS_PER_CHANNEL = 2;
    private static final int FLOATING_BUFFERS_PER_GATE = 8;
    /** 64 segments per environment: several times what one channel may use, so a bound on its share can fail. */
    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, SEGMENT_SIZE)
            .with(ShuffleOptions.BUFFERS_PER_CHANNEL, BUFFERS_PER_CHANNEL)
            .with(ShuffleOptions.FLOATING_BUFFERS_PER_GATE, FLOATING_BUFFERS_PER_GATE);
    /**
     * What the producer's partition of one subpartition may hold: as much as its consumer can credit (exclusive
     * plus floating buffers), the bounded pool size of docs/behaviours.md ENV-1.
     */
    private static final int PRODUCER_SHARE = BUFFERS_PER_CHANNEL + FLOATING_BUFFERS_PER_GATE;
    /** What the consumer's gate of one remote channel may hold: its exclusive and the gate's floating buffers. */
    private static final int CONSUMER_SHARE = BUFFERS_PER_CHANNEL + FLOATING_BUFFERS_PER_GATE;
    /** About 6 MB: a hundred times what the two shares hold. */
    private static final int RECORDS = 1500;
    private static final RecordSizes SIZES = RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * SEGMENT_SIZE);
    /** The consumer pauses this often, each time until the producer blocks, and then reads a burst. */
    private static final int PAUSES = 3;
    private static final int RECORDS_PER_BURST = 200;
    private static final long SEED = 0xB10CL;

    @EveryTransport
    void slowConsumer_blocksTheRemoteProducer_whileBothEnvironmentsStayWithinTheChannelsShare(Transport transport)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(transport, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = Endpoints.setUpWriter(shuffle, "producer", partition);
            RecordReader reader = Endpoints.setUpReader(shuffle, "slow consumer", 0, partition);
            AtomicLong emittedRecords = new AtomicLong();
            AtomicLong emittedFramedBytes = new AtomicLong();
            BackgroundTask<Long> producer = shuffle.fork("producer", () -> {
                RecordGenerator records = new RecordGenerator(0, SEED, SIZES);
                for (int i = 0; i < RECORDS; i++) {
                    int size = RecordTraffic.emitNext(writer, 0, records);
                    emittedFramedBytes.addAndGet(RecordFraming.LENGTH_BYTES + size);
                    emittedRecords.incrementAndGet();
                }
                writer.finish();
                return records.nextSequence();
            });
            RecordVerifier verifier = new RecordVerifier("slow consumer", new int[] {0});

            long emittedBefore = -1;
            for (int pause = 0; pause < PAUSES; pause++) {
                producer.awaitParkedIn("emitRecord", Await.EVENTUALLY);
                // Parked alone may be a moment before the network recycles one more buffer; blocked is parked while
                // the writer reports that no buffer is free.
                Await.until(() -> producer.isParkedIn("emitRecord") && !writer.availableFuture().isDone(),
                        Await.EVENTUALLY, () -> "the producer blocked in emitRecord with availableFuture not done");
                long emitted = emittedRecords.get();
                assertTrue(emitted > emittedBefore, "the producer went on after the consumer's burst: it had emitted "
                        + emittedBefore + " records, now " + emitted);
                assertTrue(emitted < RECORDS, "the producer blocked before its last record, after " + emitted);
                long unread = emittedFramedBytes.get() - (verifier.bytes() + verifier.records() * RecordFraming.LENGTH_BYTES);
                long share = (long) (PRODUCER_SHARE + CONSUMER_SHARE) * SEGMENT_SIZE;
                assertTrue(unread <= share, "pause " + pause + ": " + unread + " bytes emitted and not read, more "
                        + "than the " + share + " bytes the producer's partition and the consumer's channel hold");
                assertUsesAtMost(shuffle.producerEnvironment(), PRODUCER_SHARE, "producer's");
                assertUsesAtMost(shuffle.consumerEnvironment(), CONSUMER_SHARE, "consumer's");

                RecordTraffic.read(reader, verifier, RECORDS_PER_BURST);
                emittedBefore = emitted;
            }

            BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> RecordTraffic.readToEnd(reader, verifier));
            BackgroundTask.awaitAll(Await.EVENTUALLY, producer, consumer);
            verifier.endOfChannel(0, producer.await(Await.EVENTUALLY));
            assertEquals(RECORDS - PAUSES * RECORDS_PER_BURST, consumer.await(Await.EVENTUALLY),
                    "records read after the last pause");
        }
    }

    private static void assertUsesAtMost(ShuffleEnvironment environment, int share, String side) {
        ShuffleMetrics metrics = environment.metrics();
        int used = metrics.totalSegments() - metrics.availableSegments();
        assertTrue(used > 0 && used <= share, "the " + side + " environment " + environment.resourceId() + " uses "
                + used + " of its " + metrics.totalSegments() + " segments while the producer is blocked; the "
                + "channel's share is " + share);
    }
}
