package io.sluice.tests;

import io.sluice.api.RecordFraming;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleMetrics;
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

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A consumer that stops reading holds its producer back, inside the environment's memory. */
class BackpressureTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final int SEGMENTS = 16;
    /** About 4 MiB of records: hundreds of times what the environment can hold. */
    private static final int RECORDS = 2000;
    private static final long SEED = 7;

    @EveryLayout
    void consumerThatStopsReading_blocksEmitRecord_withinTheMemoryBudget_untilItReadsAgain(Layout layout)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, MemoryConfig.of(SEGMENTS, SEGMENT_SIZE))) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            AtomicLong emittedRecords = new AtomicLong();
            AtomicLong emittedBytes = new AtomicLong();
            BackgroundTask<Long> producer = shuffle.fork("producer", () -> {
                RecordGenerator records = new RecordGenerator(0, SEED,
                        RecordSizes.uniform(RecordFormat.HEADER_BYTES, 2 * SEGMENT_SIZE));
                for (int i = 0; i < RECORDS; i++) {
                    emittedBytes.addAndGet(RecordTraffic.emitNext(writer, 0, records));
                    emittedRecords.incrementAndGet();
                }
                writer.finish();
                return records.nextSequence();
            });

            // Nobody reads: the producer must end up blocked inside emitRecord.
            producer.awaitParkedIn("emitRecord", Await.EVENTUALLY);
            assertFalse(writer.availableFuture().isDone(), "availableFuture while emitRecord blocks");
            long blockedAt = emittedRecords.get();
            assertTrue(blockedAt < RECORDS, "the producer blocked after " + blockedAt + " records");
            // Nothing was read, so every emitted byte is still held somewhere: within the memory of the environments.
            long budget = SEGMENTS * (long) SEGMENT_SIZE * layout.environments();
            long held = emittedBytes.get() + blockedAt * RecordFraming.LENGTH_BYTES;
            assertTrue(held <= budget, "the producer got " + held + " bytes (" + blockedAt
                    + " framed records) past a consumer that read nothing, but the memory budget is " + budget);
            long usedBytes = 0;
            for (ShuffleEnvironment environment : shuffle.environments()) {
                ShuffleMetrics metrics = environment.metrics();
                usedBytes += (long) (metrics.totalSegments() - metrics.availableSegments()) * SEGMENT_SIZE;
            }
            assertTrue(usedBytes >= held, "the environments report " + usedBytes + " bytes of segments in use, "
                    + "but hold " + held + " bytes nobody has read");

            // Reading again releases the producer, and everything arrives.
            RecordVerifier verifier = new RecordVerifier("consumer", new int[] {0});
            BackgroundTask<Long> consumer = shuffle.fork("consumer", () -> RecordTraffic.readToEnd(reader, verifier));
            BackgroundTask.awaitAll(Await.EVENTUALLY, producer, consumer);
            verifier.endOfChannel(0, producer.await(Await.EVENTUALLY));
            assertEquals(RECORDS, consumer.await(Await.EVENTUALLY), "records read after the consumer resumed");
            System.out.printf("%s: producer blocked after %d records (%d bytes held in %d bytes of segments, "
                    + "budget %d)%n", layout, blockedAt, held, usedBytes, budget);
        }
    }
}
