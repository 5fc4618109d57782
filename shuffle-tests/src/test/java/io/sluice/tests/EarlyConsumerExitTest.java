package io.sluice.tests;

import io.sluice.api.InputGate;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.api.ShuffleOptions;
import io.sluice.tests.support.Await;
import io.sluice.tests.support.BackgroundTask;
import io.sluice.tests.support.EveryLayout;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.RecordFormat;
import io.sluice.tests.support.RecordGenerator;
import io.sluice.tests.support.RecordSizes;
import io.sluice.tests.support.RecordTraffic;
import io.sluice.tests.support.RecordVerifier;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A consumer that leaves early (closes its gate) neither blocks its producer nor disturbs the other consumers. */
class EarlyConsumerExitTest {

    private static final int SEGMENT_SIZE = 4 << 10;
    private static final ShuffleConfig CONFIG = ShuffleConfig.empty()
            .with(ShuffleOptions.MEMORY_SEGMENT_SIZE, (long) SEGMENT_SIZE)
            .with(ShuffleOptions.MEMORY_TOTAL, 64L * SEGMENT_SIZE);
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
            RecordReader staying = setUpReader(shuffle, partition, 0);
            RecordReader leaving = setUpReader(shuffle, partition, 1);
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
            Await.until(() -> !shuffle.producerEnvironment().partitionsOccupyingLocalResources().contains(partition.id()),
                    Await.EVENTUALLY, () -> "partition " + partition.id() + " released; still occupying: "
                            + shuffle.producerEnvironment().partitionsOccupyingLocalResources());
        }
    }

    private static RecordReader setUpReader(ShuffleFixture shuffle, RegisteredPartition partition, int subpartition)
            throws Exception {
        InputGate gate = shuffle.createGate("consumer " + subpartition, subpartition, partition);
        gate.setup();
        return shuffle.reader(gate);
    }

    private static RecordGenerator generator(int channel) {
        return new RecordGenerator(channel, SEED, RecordSizes.uniform(RecordFormat.HEADER_BYTES, SEGMENT_SIZE));
    }
}
