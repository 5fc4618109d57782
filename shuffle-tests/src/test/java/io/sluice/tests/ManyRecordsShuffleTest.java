package io.sluice.tests;

import io.sluice.api.RecordOrEvent;
import io.sluice.api.RecordReader;
import io.sluice.api.ResultPartitionWriter;
import io.sluice.api.ShuffleConfig;
import io.sluice.testing.BackgroundTask;
import io.sluice.tests.support.EveryLayout;
import io.sluice.tests.support.Layout;
import io.sluice.tests.support.MemoryConfig;
import io.sluice.tests.support.MixedSizeRecords;
import io.sluice.tests.support.RegisteredPartition;
import io.sluice.tests.support.ShuffleFixture;
import io.sluice.tests.support.SplitMix64;
import io.sluice.tests.support.StreamDigest;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One producer with four subpartitions, four gates read on four threads, about two million records of mixed sizes:
 * every record arrives once and in order on its subpartition. Also prints the throughput (never asserted).
 */
class ManyRecordsShuffleTest {

    private static final int SUBPARTITIONS = 4;
    private static final int RECORDS = 2_000_000;
    private static final long SEED = 0x51_0C_E5L;
    /** Small segments: three times a segment stays a modest record, and framing crosses buffer ends often. */
    private static final int SEGMENT_SIZE = 8 << 10;
    /** 16 MiB per environment. */
    private static final ShuffleConfig CONFIG = MemoryConfig.of(2048, SEGMENT_SIZE);
    /** A hang guard for the whole run; a healthy run on two cores takes a few seconds. */
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(90);

    @EveryLayout
    void twoMillionMixedSizeRecords_arriveOnceAndInOrder_onEverySubpartition(Layout layout) throws Exception {
        try (ShuffleFixture shuffle = ShuffleFixture.start(layout, CONFIG)) {
            RegisteredPartition partition = shuffle.registerPartition(SUBPARTITIONS);
            ResultPartitionWriter writer = shuffle.createWriter("producer", partition);
            writer.setup();
            List<BackgroundTask<StreamDigest.Summary>> consumers = new ArrayList<>(SUBPARTITIONS);
            for (int s = 0; s < SUBPARTITIONS; s++) {
                RecordReader reader = shuffle.setUpReader("consumer " + s, s, partition);
                int subpartition = s;
                consumers.add(shuffle.fork("consumer " + s, () -> consume(reader, subpartition)));
            }

            long start = System.nanoTime();
            BackgroundTask<StreamDigest.Summary[]> producer = shuffle.fork("producer", () -> produce(writer));
            List<BackgroundTask<?>> everyTask = new ArrayList<>(consumers);
            everyTask.add(producer);
            BackgroundTask.awaitAll(RUN_TIMEOUT, everyTask.toArray(new BackgroundTask<?>[0]));
            long nanos = System.nanoTime() - start;

            StreamDigest.Summary[] sent = producer.await(RUN_TIMEOUT);
            long totalRecords = 0;
            long totalBytes = 0;
            for (int s = 0; s < SUBPARTITIONS; s++) {
                StreamDigest.Summary received = consumers.get(s).await(RUN_TIMEOUT);
                assertEquals(sent[s], received, "records, bytes and checksum of subpartition " + s);
                totalRecords += received.records();
                totalBytes += received.bytes();
            }

            assertEquals(RECORDS, totalRecords, "records over all subpartitions");
            printThroughput(layout, totalRecords, totalBytes, nanos);
        }
    }

    /** Producer thread: records of each subpartition's stream, to subpartitions picked at random. */
    private static StreamDigest.Summary[] produce(ResultPartitionWriter writer) throws Exception {
        SplitMix64 targets = new SplitMix64(SEED);
        MixedSizeRecords[] streams = new MixedSizeRecords[SUBPARTITIONS];
        StreamDigest[] digests = new StreamDigest[SUBPARTITIONS];
        for (int s = 0; s < SUBPARTITIONS; s++) {
            streams[s] = new MixedSizeRecords(s, SEED, SEGMENT_SIZE);
            digests[s] = new StreamDigest();
        }
        for (int i = 0; i < RECORDS; i++) {
            int target = targets.nextInt(SUBPARTITIONS);
            ByteBuffer record = streams[target].next();
            digests[target].add(record);
            writer.emitRecord(record, target);
        }
        writer.finish();
        StreamDigest.Summary[] summaries = new StreamDigest.Summary[SUBPARTITIONS];
        for (int s = 0; s < SUBPARTITIONS; s++) {
            summaries[s] = digests[s].summary();
        }
        return summaries;
    }

    /** Consumer thread: every record is the next one of its subpartition's stream. */
    private static StreamDigest.Summary consume(RecordReader reader, int subpartition) throws Exception {
        MixedSizeRecords expected = new MixedSizeRecords(subpartition, SEED, SEGMENT_SIZE);
        StreamDigest digest = new StreamDigest();
        for (RecordOrEvent next = reader.next(); next != null; next = reader.next()) {
            if (next.isEvent() || next.channelIndex() != 0) {
                throw new AssertionError("consumer " + subpartition + " got "
                        + (next.isEvent() ? "an event" : "a record") + " on channel " + next.channelIndex()
                        + " after " + expected.count() + " records");
            }
            ByteBuffer record = next.data();
            expected.expectNext(record);
            digest.add(record);
        }
        return digest.summary();
    }

    private static void printThroughput(Layout layout, long records, long bytes, long nanos) {
        double seconds = nanos / 1e9;
        System.out.printf("%s, %d subpartitions x %d gates, %d KiB segments: %,d records, %.2f GB in %.2f s: "
                        + "%,.0f records/s, %.3f GB/s%n", layout, SUBPARTITIONS, SUBPARTITIONS, SEGMENT_SIZE >> 10,
                records, bytes / 1e9, seconds, records / seconds, bytes / 1e9 / seconds);
    }
}
