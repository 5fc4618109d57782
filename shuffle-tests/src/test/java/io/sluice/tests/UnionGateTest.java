package io.sluice.tests;

import io.sluice.api.InputGate;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.UnionInputGate;
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

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One consumer thread reads a 1-channel and a 3-channel gate as one union gate. */
class UnionGateTest {

    private static final int SEGMENT_SIZE = MemoryConfig.SMALL_SEGMENT;
    private static final int EARLY_RECORDS = 200;
    private static final int LATE_RECORDS_PER_CHANNEL = 2000;
    private static final long SEED = 23;

    @EveryLayout
    void unionOfOneAndThreeChannelGates_deliversEveryRecordWithItsUnionChannel_andFinishesOnceBothHave(Layout layout)
            throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, MemoryConfig.of(128, SEGMENT_SIZE))) {
            RegisteredPartition early = shuffle.registerPartition(1);
            RegisteredPartition[] late = {
                shuffle.registerPartition(1), shuffle.registerPartition(1), shuffle.registerPartition(1)};
            ResultPartitionWriter earlyWriter = setUpWriter(shuffle, "early producer", early);
            ResultPartitionWriter[] lateWriters = {setUpWriter(shuffle, "late producer 0", late[0]),
                setUpWriter(shuffle, "late producer 1", late[1]), setUpWriter(shuffle, "late producer 2", late[2])};
            InputGate oneChannel = shuffle.createGate("consumer (early input)", 0, early);
            InputGate threeChannels = shuffle.createGate("consumer (late inputs)", 0, late);
            UnionInputGate union = new UnionInputGate(List.of(oneChannel, threeChannels));
            union.setup();
            RecordReader reader = shuffle.reader(union);
            assertEquals(4, union.numberOfInputChannels(), "channels of the union");

            // Each record carries its expected union channel: 0 for the 1-channel gate, 1 to 3 for the other.
            BackgroundTask<Long> earlyProducer = shuffle.fork("early producer", () -> {
                RecordTraffic.emit(earlyWriter, 0, generator(0), EARLY_RECORDS);
                earlyWriter.finish();
                return (long) EARLY_RECORDS;
            });
            BackgroundTask<long[]> lateProducers = shuffle.fork("late producers", () -> {
                // Starts only once the 1-channel gate has finished: the union must go on with the other alone.
                Await.until(oneChannel::isFinished, Await.EVENTUALLY, () -> "the 1-channel gate finished");
                assertFalse(union.isFinished(), "the union finished with only one of its gates");
                RecordGenerator[] records = {generator(1), generator(2), generator(3)};
                for (int i = 0; i < LATE_RECORDS_PER_CHANNEL; i++) {
                    for (int c = 0; c < lateWriters.length; c++) {
                        RecordTraffic.emitNext(lateWriters[c], 0, records[c]);
                    }
                }
                long[] sent = new long[lateWriters.length];
                for (int c = 0; c < lateWriters.length; c++) {
                    lateWriters[c].finish();
                    sent[c] = records[c].nextSequence();
                }
                return sent;
            });

            RecordVerifier verifier = new RecordVerifier("union consumer", new int[] {0, 1, 2, 3});
            BackgroundTask<Long> consumer = shuffle.fork("union consumer",
                    () -> RecordTraffic.readToEnd(reader, verifier));
            BackgroundTask.awaitAll(Await.EVENTUALLY, earlyProducer, lateProducers, consumer);

            verifier.endOfChannel(0, earlyProducer.await(Await.EVENTUALLY));
            long[] lateSent = lateProducers.await(Await.EVENTUALLY);
            for (int c = 0; c < lateSent.length; c++) {
                verifier.endOfChannel(1 + c, lateSent[c]);
            }
            verifier.verifyAllEnded();
            assertEquals(EARLY_RECORDS + 3L * LATE_RECORDS_PER_CHANNEL, consumer.await(Await.EVENTUALLY),
                    "records read through the union");
            assertTrue(union.isFinished() && oneChannel.isFinished() && threeChannels.isFinished(),
                    "the union and both its gates are finished");
        }
    }

    private static ResultPartitionWriter setUpWriter(ShuffleFixture shuffle, String owner,
                                                     RegisteredPartition partition) throws Exception {
        ResultPartitionWriter writer = shuffle.createWriter(owner, partition);
        writer.setup();
        return writer;
    }

    private static RecordGenerator generator(int unionChannel) {
        return new RecordGenerator(unionChannel, SEED, RecordSizes.uniform(RecordFormat.HEADER_BYTES, SEGMENT_SIZE));
    }
}
