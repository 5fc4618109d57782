package io.sluice.tests;

import io.sluice.api.InputGate;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleEnvironment;
import io.sluice.api.ShuffleException;
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

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer that leaves early (its gate closed) neither blocks its producer nor disturbs the other consumers, a
 * consumer waiting in a gate that is closed under it wakes up, and a reader closed by another thread leaves the
 * record its consumer holds intact and gets its buffers back through that consumer.
 */
class EarlyConsumerExitTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final ShuffleConfig CONFIG = MemoryConfig.of(64, SEGMENT_SIZE);
    /** Per subpartition; about 20 MiB for the one that is left: far more than the partition's buffers. */
    private static final int RECORDS = 10_000;
    private static final int READ_BEFORE_LEAVING = 10;
    private static final long SEED = 11;

    @EveryLayout
    void consumerClosingItsGateEarly_neitherBlocksTheProducerNorDisturbsTheOtherConsumer(Layout layout)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(2);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader staying = shuffle.setUpReader("consumer 0", 0, partition);
            RecordReader leaving = shuffle.setUpReader("consumer 1", 1, partition);
            BackgroundTask<Long> producer = shuffle.fork("producer", () -> {
                RecordGenerator[] records = {generator(0), generator(1)};
                for (int i = 0; i < RECORDS; i++) {
                    RecordTraffic.emitNext(writer, 0, records[0]);
                    RecordTraffic.emitNext(writer, 1, records[1]);
                }
                writer.finish();
                return records[0].nextSequence();
            });
            RecordVerifier stayingVerifier = new RecordVerifier("consumer 0", new int[] {0});
            BackgroundTask<Long> stayingConsumer = shuffle.fork("consumer 0",
                    () -> RecordTraffic.readToEnd(staying, stayingVerifier));

            RecordTraffic.read(leaving, new RecordVerifier("consumer 1", new int[] {1}), READ_BEFORE_LEAVING);
            // Subpartition 1 is no longer read: its buffers pile up until the producer blocks on them.
            producer.awaitParkedIn("emitRecord", Await.EVENTUALLY);
            leaving.close();

            BackgroundTask.awaitAll(Await.EVENTUALLY, producer, stayingConsumer);
            stayingVerifier.endOfChannel(0, producer.await(Await.EVENTUALLY));
            assertEquals(RECORDS, stayingConsumer.await(Await.EVENTUALLY), "records read by the consumer that stayed");
            // Finished, read to its end by one consumer and left by the other: nothing needs the partition now.
            ShuffleEnvironment producerEnvironment = shuffle.producerEnvironment();
            Await.until(() -> !producerEnvironment.partitionsOccupyingLocalResources().contains(partition.id()),
                    Await.EVENTUALLY, () -> "partition " + partition.id() + " released; still occupying: "
                            + producerEnvironment.partitionsOccupyingLocalResources());
        }
    }

    @EveryLayout
    void closingAGate_wakesItsWaitingConsumer_withAFailureRatherThanAnEnd(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            shuffle.createWriter("producer", partition).setup();
            InputGate gate = shuffle.createGate("consumer", 0, partition);
            gate.setup();
            RecordReader reader = shuffle.reader(gate);
            BackgroundTask<Long> consumer = shuffle.fork("consumer",
                    () -> RecordTraffic.readToEnd(reader, new RecordVerifier("consumer", new int[] {0})));
            consumer.awaitParkedIn("getNext", Await.EVENTUALLY);

            gate.close(); // from another thread, as an engine cancelling the consuming task does

            Throwable failure = consumer.awaitFailure(Await.EVENTUALLY);
            assertTrue(failure instanceof ShuffleException,
                    "a closed gate is reported as a failure of the read (the API's exception), not as the end of "
                            + "the data: " + failure);
        }
    }

    @EveryLayout
    void readerClosedByAnotherThread_whileItsConsumerHoldsARecord_leavesTheRecordIntact_andTheConsumerGivesBackItsBuffers(
            Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(1);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            RecordReader reader = shuffle.setUpReader("consumer", 0, partition);
            BackgroundTask<Long> producer = shuffle.fork("producer", () -> {
                RecordGenerator records = generator(0);
                RecordTraffic.emit(writer, 0, records, 2L * READ_BEFORE_LEAVING);
                writer.finish();
                return records.nextSequence();
            });
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch closed = new CountDownLatch(1);
            BackgroundTask<String> consumer = shuffle.fork("consumer", () -> {
                RecordTraffic.read(reader, new RecordVerifier("consumer", new int[] {0}), READ_BEFORE_LEAVING);
                ByteBuffer held = reader.next().data();
                byte[] before = bytesOf(held);
                holding.countDown();
                closed.await();
                boolean intact = Arrays.equals(before, bytesOf(held));
                IllegalStateException end = assertThrows(IllegalStateException.class, reader::next);
                return intact + ": " + end.getMessage();
            });
            holding.await();
            producer.await(Await.EVENTUALLY);

            reader.close(); // from the test's thread while the consumer, alive, holds a record

            closed.countDown();
            assertEquals("true: RecordReader.next() called after close()", consumer.await(Await.EVENTUALLY),
                    "the held record is intact after the close, and the consumer's next call ends its reading");
            // The fixture's close checks that every segment is back in every environment.
        }
    }

    private static byte[] bytesOf(ByteBuffer data) {
        byte[] bytes = new byte[data.remaining()];
        data.duplicate().get(bytes);
        return bytes;
    }

    private static RecordGenerator generator(int channel) {
        return new RecordGenerator(channel, SEED, RecordSizes.uniform(RecordFormat.HEADER_BYTES, SEGMENT_SIZE));
    }
}
